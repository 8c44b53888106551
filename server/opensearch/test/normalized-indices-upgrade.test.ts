// An installation whose normalized indices were created by an earlier release (without changed_at_ms, duration_us, the
// run's name/namespace/version in task documents, the JSON operators' paths and numbers, the mark, head and chunks of
// an error.detail beyond the keyword limit inside `error`, and the ingest-error records' `source`): the normalizer's
// bootstrap adds the new fields in place, so the documents it writes are accepted by the strict mappings, and the
// documents already there stay readable.
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { applyNormalizedIndices, ingestErrorsIndex, normalizedIndexNames, taskExecutionsIndex, workflowInstancesIndex } from '../src/normalized-indices.js';
import type { TestNamespace } from './support/test-node.js';

const NEW_ERROR_FIELDS = ['detail_long', 'detail_head', 'detail_chunks'];
const NEW_FIELDS = ['changed_at_ms', 'source', 'duration_us', 'workflow_name', 'workflow_namespace', 'workflow_version', 'input_paths', 'input_numbers', 'input_paths_complete', 'output_paths', 'output_numbers', 'output_paths_complete'];

/** A definition as the earlier release had it: the same without this release's fields. */
function earlier(definition: Record<string, unknown>): Record<string, unknown> {
  const mappings = definition['mappings'] as { properties: Record<string, unknown> };
  const properties = Object.fromEntries(Object.entries(mappings.properties).filter(([k]) => !NEW_FIELDS.includes(k)));
  const error = properties['error'] as { properties: Record<string, unknown> } | undefined;
  if (error === undefined) return { ...definition, mappings: { ...mappings, properties } };
  properties['error'] = { ...error, properties: Object.fromEntries(Object.entries(error.properties).filter(([k]) => !NEW_ERROR_FIELDS.includes(k))) };
  return { ...definition, mappings: { ...mappings, properties } };
}

describeOpenSearch('normalized indices created by an earlier release', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  it('the bootstrap adds the new fields in place; a document with them is accepted, the old ones stay', async () => {
    const names = normalizedIndexNames(ns.prefix);
    for (const [name, definition] of [[names.workflowInstances, workflowInstancesIndex()], [names.taskExecutions, taskExecutionsIndex()], [names.ingestErrors, ingestErrorsIndex()]] as const) {
      await ns.client.transport.request({ method: 'PUT', path: `/${name}`, body: earlier(definition) });
    }
    await ns.client.transport.request({ method: 'PUT', path: `/${names.workflowInstances}/_doc/old`, querystring: { refresh: 'true' }, body: { id: 'old', status: 'COMPLETED', placeholder: false } });
    // before: the strict mapping refuses this release's documents
    const refused = await ns.client.transport.request({ method: 'PUT', path: `/${names.workflowInstances}/_doc/new`, body: { id: 'new', duration_us: 5 } }, { ignore: [400] });
    expect(refused.statusCode).toBe(400);
    const longDetail = { detail: 'd'.repeat(9000), detail_long: true, detail_head: 'd'.repeat(8191), detail_chunks: ['d'.repeat(8191), 'd'.repeat(1833)] };
    const refusedError = await ns.client.transport.request({ method: 'PUT', path: `/${names.taskExecutions}/_doc/new`, body: { id: 'new', error: longDetail } }, { ignore: [400] });
    expect(refusedError.statusCode).toBe(400);

    const results = await applyNormalizedIndices(ns.client, ns.prefix);
    expect(results.find((r) => r.name === names.workflowInstances)?.action).toBe('unchanged');
    for (const name of [names.workflowInstances, names.taskExecutions]) {
      const mapping = (await ns.client.transport.request({ method: 'GET', path: `/${name}/_mapping` })).body as Record<string, { mappings: { properties: Record<string, unknown> } }>;
      const fields = Object.keys(mapping[name]!.mappings.properties);
      expect(fields).toEqual(expect.arrayContaining(['duration_us', 'input_paths', 'input_numbers', 'output_paths_complete']));
      if (name === names.taskExecutions) expect(fields).toEqual(expect.arrayContaining(['workflow_name', 'workflow_namespace', 'workflow_version']));
      // The live updates' stamp (opensearch-change-feed.ts), on run documents.
      else expect(fields).toContain('changed_at_ms');
      const error = mapping[name]!.mappings.properties['error'] as { properties: Record<string, unknown> };
      expect(Object.keys(error.properties)).toEqual(expect.arrayContaining(['detail', ...NEW_ERROR_FIELDS]));
    }
    // ingest-error records gain the rejected event's text (`source`), which a run's event history serves
    const ingestMapping = (await ns.client.transport.request({ method: 'GET', path: `/${names.ingestErrors}/_mapping` })).body as Record<string, { mappings: { properties: Record<string, unknown> } }>;
    expect(Object.keys(ingestMapping[names.ingestErrors]!.mappings.properties)).toContain('source');
    const acceptedError = await ns.client.transport.request({ method: 'PUT', path: `/${names.taskExecutions}/_doc/new`, querystring: { refresh: 'true' }, body: { id: 'new', error: longDetail } });
    expect(acceptedError.statusCode).toBe(201);
    const marked = await ns.client.transport.request({ method: 'POST', path: `/${names.taskExecutions}/_count`, body: { query: { prefix: { 'error.detail_head': 'ddd' } } } });
    expect((marked.body as { count: number }).count).toBe(1);
    const accepted = await ns.client.transport.request({ method: 'PUT', path: `/${names.workflowInstances}/_doc/new`, querystring: { refresh: 'true' }, body: { id: 'new', duration_us: 5, input_paths: ['a'], changed_at_ms: 1 } });
    expect(accepted.statusCode).toBe(201);
    const count = await ns.client.transport.request({ method: 'POST', path: `/${names.workflowInstances}/_count` });
    expect((count.body as { count: number }).count).toBe(2);
    // a rerun changes nothing
    expect((await applyNormalizedIndices(ns.client, ns.prefix)).every((r) => r.action === 'unchanged')).toBe(true);
  });
});
