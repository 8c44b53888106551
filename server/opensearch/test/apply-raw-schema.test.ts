// applyRawSchema against the real node: what it reports on a fresh cluster, on a second run, and after a drift.
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { type TestNamespace, createTestNamespace } from './support/test-node.js';

describeOpenSearch('applyRawSchema (real OpenSearch node)', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  const names = (p: string) => [`${p}workflow-events-raw-pipeline`, `${p}workflow-instance-events-raw-template`, `${p}task-execution-events-raw-template`];

  it('reports created, then unchanged; a dry run changes nothing; a drifted object is updated', async () => {
    const planned = await applyRawSchema(ns.client, { prefix: ns.prefix, dryRun: true });
    expect(planned.map((r) => [r.name, r.action])).toEqual(names(ns.prefix).map((n) => [n, 'created']));
    const missing = await ns.client.transport.request({ method: 'GET', path: `/_index_template/${ns.prefix}*` }, { ignore: [404] });
    expect((missing.body as { index_templates?: unknown[] }).index_templates ?? []).toEqual([]);

    expect((await applyRawSchema(ns.client, { prefix: ns.prefix })).map((r) => r.action)).toEqual(['created', 'created', 'created']);
    expect((await applyRawSchema(ns.client, { prefix: ns.prefix })).map((r) => r.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);

    await ns.client.transport.request({ method: 'PUT', path: `/_index_template/${ns.prefix}task-execution-events-raw-template`, body: { index_patterns: [`${ns.prefix}task-execution-events-raw-*`], priority: 1 } });
    await ns.client.transport.request({ method: 'PUT', path: `/_ingest/pipeline/${ns.prefix}workflow-events-raw-pipeline`, body: { processors: [] } });
    expect((await applyRawSchema(ns.client, { prefix: ns.prefix })).map((r) => r.action)).toEqual(['updated', 'unchanged', 'updated']);
    expect((await applyRawSchema(ns.client, { prefix: ns.prefix })).map((r) => r.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
  });

  it('sets the depth limit on the raw indices that already exist (an upgrade): today\'s index accepts deep arrays at once', async () => {
    const other = createTestNamespace();
    try {
      // An install from before the setting: its daily indices have the default limit of 20.
      const today = `${other.prefix}workflow-instance-events-raw-2026.11.24`;
      const yesterday = `${other.prefix}task-execution-events-raw-2026.11.23`;
      for (const index of [today, yesterday]) await other.client.transport.request({ method: 'PUT', path: `/${index}`, body: { mappings: { dynamic: false } } });
      const deep = { eventType: 'x', n: JSON.parse(`${'['.repeat(30)}1${']'.repeat(30)}`) as unknown };
      const refused = await other.client.transport.request({ method: 'POST', path: `/${today}/_doc`, body: deep }, { ignore: [400] });
      expect(JSON.stringify(refused.body)).toContain('exceeded the allowed limit of [20]');

      const planned = await applyRawSchema(other.client, { prefix: other.prefix, dryRun: true });
      expect(planned.filter((r) => r.kind === 'existing raw indices').map((r) => [r.name, r.action])).toEqual([
        [`${other.prefix}workflow-instance-events-raw-*`, 'updated'],
        [`${other.prefix}task-execution-events-raw-*`, 'updated'],
      ]);
      const limit = async (index: string): Promise<unknown> => {
        const body = (await other.client.transport.request({ method: 'GET', path: `/${index}/_settings`, querystring: { flat_settings: 'true' } })).body as Record<string, { settings: Record<string, unknown> }>;
        return body[index]!.settings['index.mapping.depth.limit'];
      };
      expect(await limit(today)).toBeUndefined(); // the dry run changed nothing

      expect((await applyRawSchema(other.client, { prefix: other.prefix })).filter((r) => r.kind === 'existing raw indices').map((r) => r.action)).toEqual(['updated', 'updated']);
      expect([await limit(today), await limit(yesterday)]).toEqual(['1000', '1000']);
      const accepted = await other.client.transport.request({ method: 'POST', path: `/${today}/_doc`, body: deep });
      expect(accepted.statusCode).toBe(201);
      // Nothing left to change: no line about existing indices, as on a fresh cluster.
      expect((await applyRawSchema(other.client, { prefix: other.prefix })).map((r) => [r.kind, r.action])).toEqual([
        ['ingest pipeline', 'unchanged'], ['index template', 'unchanged'], ['index template', 'unchanged'],
      ]);
    } finally {
      await other.drop();
    }
  });

  it('shapes a new raw index: unmapped event fields, the pipeline as default, green on one node', async () => {
    await applyRawSchema(ns.client, { prefix: ns.prefix });
    const index = `${ns.prefix}workflow-instance-events-raw-2026.05.12`;
    await ns.client.transport.request({ method: 'PUT', path: `/${index}` });
    const settings = (await ns.client.transport.request({ method: 'GET', path: `/${index}/_settings` })).body as Record<string, { settings: { index: Record<string, unknown> } }>;
    expect(settings[index]!.settings.index['default_pipeline']).toBe(`${ns.prefix}workflow-events-raw-pipeline`);
    expect(settings[index]!.settings.index['mapping']).toEqual({ depth: { limit: '1000' } });
    const mapping = (await ns.client.transport.request({ method: 'GET', path: `/${index}/_mapping` })).body as Record<string, { mappings: { dynamic: string; properties: Record<string, unknown> } }>;
    expect(mapping[index]!.mappings.dynamic).toBe('false');
    expect(Object.keys(mapping[index]!.mappings.properties)).toEqual(['wi']);
    const health = (await ns.client.transport.request({ method: 'GET', path: `/_cluster/health/${index}`, querystring: { wait_for_status: 'green', timeout: '30s' } })).body as { status: string };
    expect(health.status).toBe('green');
  });
});
