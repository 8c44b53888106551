// `opensearch-setup`, `plan --backend opensearch` and `status --backend opensearch` run as the real process against
// the real node (server/opensearch/test/support/test-node.ts), each test under its own object-name prefix
// (WI_OPENSEARCH_INDEX_PREFIX), so the real names on the node are never touched.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeEventLines } from '@workflow-index/opensearch';
import { readCheckpoint, writeStatus } from '@workflow-index/opensearch';
import { OpenSearchNormalizer } from '@workflow-index/opensearch';
import { RULES_VERSION } from '@workflow-index/opensearch';
import { FIXTURE_PATH } from '@workflow-index/testkit';
import { createTestNamespace, OPENSEARCH_URL, openSearchReachable, type TestNamespace } from '@workflow-index/opensearch/testing';
import { renormalizationLine } from '../src/opensearch-status-command.js';
import { runInit } from '@workflow-index/testkit';

const available = await openSearchReachable();
const node = new URL(OPENSEARCH_URL);

/** Every OpenSearch setting the CLI reads, set explicitly so the runner's environment cannot leak in. */
function openSearchEnv(prefix: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    OPENSEARCH_HOST: node.hostname,
    OPENSEARCH_PORT: node.port || '9200',
    OPENSEARCH_PROTOCOL: node.protocol.replace(':', ''),
    OPENSEARCH_USERNAME: '',
    OPENSEARCH_PASSWORD: '',
    OPENSEARCH_CA_FILE: '',
    WI_OPENSEARCH_INDEX_PREFIX: prefix,
    RAW_EVENTS_RETENTION_DAYS: '',
    INSTANCE_RETENTION_DAYS: '',
    OPENSEARCH_SHARDS: '',
    OPENSEARCH_REPLICAS: '',
    ...overrides,
  };
}

/** The objects in the order setup handles them, spelled out here rather than taken from the code under test. */
function objects(prefix: string): [string, string][] {
  return [
    ['ingest pipeline', `${prefix}workflow-events-raw-pipeline`],
    ['index template', `${prefix}workflow-instance-events-raw-template`],
    ['index template', `${prefix}task-execution-events-raw-template`],
    ['index', `${prefix}workflow-instances`],
    ['index', `${prefix}task-executions`],
    ['index', `${prefix}workflow-index-ingest-errors`],
    ['index', `${prefix}workflow-index-normalizer`],
    ['index', `${prefix}workflow-index-events`],
    ['normalization job', 'workflow-instance-transform'],
    ['normalization job', 'task-execution-transform'],
    ['retention rule', `${prefix}workflow-index-normalizer/_doc/retention`],
  ];
}

function lines(prefix: string, action: string | ((kind: string, name: string) => string)): string {
  return objects(prefix)
    .map(([kind, name]) => `${kind} ${name}: ${typeof action === 'string' ? action : action(kind, name)}\n`)
    .join('');
}

describe.skipIf(!available)('init-job opensearch-setup against a real node', () => {
  let ns: TestNamespace;
  beforeAll(() => {
    ns = createTestNamespace();
  });
  afterAll(async () => {
    await ns?.drop();
  });

  async function exists(path: string): Promise<boolean> {
    const response = await ns.client.transport.request({ method: 'GET', path }, { ignore: [404] });
    return response.statusCode === 200 && JSON.stringify(response.body) !== '{}';
  }

  async function statusDocument(prefix: string): Promise<Record<string, unknown>> {
    const response = await ns.client.transport.request({ method: 'GET', path: `/${prefix}workflow-index-normalizer/_doc/status` });
    return (response.body as { _source: Record<string, unknown> })._source;
  }

  it('creates every object, and a second run finds them all unchanged', async () => {
    const prefix = `${ns.prefix}twice-`;
    const first = await runInit(['opensearch-setup'], openSearchEnv(prefix));
    expect(first.stderr).toContain(`opensearch: ${node.origin}, no authentication, object names prefixed "${prefix}"\n`);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(lines(prefix, 'created'));
    expect(first.stderr).toContain('opensearch setup done: 11 created, 0 updated, 0 unchanged\n');

    // What was created is what the backend needs: the template routes raw indices through the pipeline, the
    // normalized mapping is strict, and both jobs are registered as started for the normalizer to run.
    const template = await ns.client.transport.request({ method: 'GET', path: `/_index_template/${prefix}workflow-instance-events-raw-template` });
    const stored = (template.body as { index_templates: { index_template: { index_patterns: string[]; template: { settings: { index: Record<string, string> } } } }[] }).index_templates[0]!.index_template;
    expect(stored.index_patterns).toEqual([`${prefix}workflow-instance-events-raw-*`]);
    expect(stored.template.settings.index['default_pipeline']).toBe(`${prefix}workflow-events-raw-pipeline`);
    const mapping = await ns.client.transport.request({ method: 'GET', path: `/${prefix}task-executions/_mapping` });
    expect((mapping.body as Record<string, { mappings: { dynamic: string } }>)[`${prefix}task-executions`]!.mappings.dynamic).toBe('strict');
    const registered = { state: 'started', documents_written: 0, documents_deleted: 0, last_cycle_ms: null, last_success_at_ms: null, last_error: null };
    const status = await statusDocument(prefix);
    expect(status['holder']).toBe('');
    expect(status['jobs']).toEqual({ 'workflow-instance-transform': registered, 'task-execution-transform': registered });

    const second = await runInit(['opensearch-setup'], openSearchEnv(prefix));
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(lines(prefix, 'unchanged'));
    expect(second.stderr).toContain('opensearch setup done: 0 created, 0 updated, 11 unchanged\n');
    expect(await statusDocument(prefix)).toEqual(status);
  });

  it('OPENSEARCH_SHARDS / OPENSEARCH_REPLICAS: new indices get them, a rerun changes replicas in place and notes other shards', async () => {
    const prefix = `${ns.prefix}layout-`;
    const layoutIndices = ['workflow-instances', 'task-executions', 'workflow-index-ingest-errors', 'workflow-index-events'].map((n) => `${prefix}${n}`);
    const settings = async (): Promise<Record<string, { shards: string; replicas: string }>> => {
      const response = await ns.client.transport.request({ method: 'GET', path: `/${prefix}*/_settings`, querystring: { flat_settings: 'true' } });
      return Object.fromEntries(
        Object.entries(response.body as Record<string, { settings: Record<string, string> }>).map(([name, { settings: s }]) => [name, { shards: s['index.number_of_shards']!, replicas: s['index.auto_expand_replicas']! }]),
      );
    };
    const health = async (): Promise<string> => ((await ns.client.transport.request({ method: 'GET', path: `/_cluster/health/${prefix}*` })).body as { status: string }).status;

    expect((await runInit(['opensearch-setup'], openSearchEnv(prefix, { OPENSEARCH_SHARDS: '2', OPENSEARCH_REPLICAS: '1' }))).code).toBe(0);
    // A raw index, created by its template.
    const written = await writeEventLines(ns.client, [{ line: readFileSync(FIXTURE_PATH, 'utf8').split('\n')[0]!, recordTimeMs: Date.UTC(2026, 4, 12) }], prefix);
    expect(written.items.map((i) => i.status)).toEqual([201]);
    const raw = written.items[0]!.index;
    let now = await settings();
    for (const name of [...layoutIndices, raw]) expect(now[name]).toEqual({ shards: '2', replicas: '0-1' });
    expect(now[`${prefix}workflow-index-normalizer`]).toEqual({ shards: '1', replicas: '0-1' });
    // One node: no replica is assigned, and every index is green.
    expect(await health()).toBe('green');

    const more = await runInit(['opensearch-setup'], openSearchEnv(prefix, { OPENSEARCH_SHARDS: '2', OPENSEARCH_REPLICAS: '2' }));
    expect(more.code).toBe(0);
    for (const name of [...layoutIndices, `${prefix}workflow-index-normalizer`]) expect(more.stdout).toContain(`index ${name}: updated\n`);
    expect(more.stdout).toContain(`existing raw indices ${prefix}workflow-instance-events-raw-*: updated\n`);
    now = await settings();
    for (const name of [...layoutIndices, raw]) expect(now[name]).toEqual({ shards: '2', replicas: '0-2' });
    expect(await health()).toBe('green');
    expect((await runInit(['opensearch-setup'], openSearchEnv(prefix, { OPENSEARCH_SHARDS: '2', OPENSEARCH_REPLICAS: '2' }))).stderr).toContain('0 created, 0 updated, 11 unchanged');

    const reshard = await runInit(['opensearch-setup'], openSearchEnv(prefix, { OPENSEARCH_SHARDS: '3', OPENSEARCH_REPLICAS: '2' }));
    expect(reshard.code).toBe(0);
    for (const name of layoutIndices) expect(reshard.stdout).toContain(`index ${name}: unchanged (note: has 2 shard(s), not 3: shards cannot change on an existing index; reindex`);
    expect(reshard.stdout).toContain(`index ${prefix}workflow-index-normalizer: unchanged\n`);
    expect(reshard.stdout).toContain(`index template ${prefix}workflow-instance-events-raw-template: updated\n`);
    expect((await settings())[`${prefix}workflow-instances`]).toEqual({ shards: '2', replicas: '0-2' });

    const wrong = await runInit(['opensearch-setup'], openSearchEnv(prefix, { OPENSEARCH_SHARDS: '0', OPENSEARCH_REPLICAS: 'one' }));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('OPENSEARCH_SHARDS must be a whole number from 1 to 1024, got "0"');
    expect(wrong.stderr).toContain('OPENSEARCH_REPLICAS must be a whole number from 0 to 16, got "one"');
  });

  it('a dry run (and plan --backend opensearch) says what would change and changes nothing', async () => {
    const prefix = `${ns.prefix}dry-`;
    const [dry, plan] = await Promise.all([
      runInit(['opensearch-setup', '--dry-run'], openSearchEnv(prefix)),
      runInit(['plan', '--backend', 'opensearch'], openSearchEnv(prefix)),
    ]);
    for (const run of [dry, plan]) {
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(lines(prefix, 'would be created'));
      expect(run.stderr).toContain('dry run: 11 to create, 0 to update, 0 unchanged; nothing was changed\n');
    }
    expect(await exists(`/${prefix}*`)).toBe(false);
    expect(await exists(`/_index_template/${prefix}*`)).toBe(false);
    expect(await exists(`/_ingest/pipeline/${prefix}*`)).toBe(false);

    // Drift after a real setup: a changed setting and a job missing from the status document.
    expect((await runInit(['opensearch-setup'], openSearchEnv(prefix))).code).toBe(0);
    await ns.client.transport.request({ method: 'PUT', path: `/${prefix}workflow-instances/_settings`, body: { index: { refresh_interval: '30s' } } });
    const kept = { state: 'started', documents_written: 7, documents_deleted: 0, last_cycle_ms: 12, last_success_at_ms: 1_700_000_000_000, last_error: null };
    await ns.client.transport.request({
      method: 'PUT',
      path: `/${prefix}workflow-index-normalizer/_doc/status`,
      querystring: { refresh: 'true' },
      body: { kind: 'status', holder: 'n-1', checkpoint_ms: 0, lag_ms: 0, raw_events_processed: 0, raw_events_rejected: 0, failed_cycles: 0, jobs: { 'workflow-instance-transform': kept }, updated_at_ms: 1_700_000_000_000 },
    });
    const refreshInterval = async (): Promise<string> => {
      const r = await ns.client.transport.request({ method: 'GET', path: `/${prefix}workflow-instances/_settings/index.refresh_interval` });
      return (r.body as Record<string, { settings: { index: { refresh_interval: string } } }>)[`${prefix}workflow-instances`]!.settings.index.refresh_interval;
    };
    const drifted = (would: boolean) => (kind: string, name: string): string =>
      name === `${prefix}workflow-instances` ? (would ? 'would be updated' : 'updated') : name === 'task-execution-transform' ? (would ? 'would be created' : 'created') : 'unchanged';

    const dryAgain = await runInit(['opensearch-setup', '--dry-run'], openSearchEnv(prefix));
    expect(dryAgain.code).toBe(0);
    expect(dryAgain.stdout).toBe(lines(prefix, drifted(true)));
    expect(await refreshInterval()).toBe('30s');
    expect((await statusDocument(prefix))['jobs']).toEqual({ 'workflow-instance-transform': kept });

    const status = await runInit(['status', '--backend', 'opensearch'], openSearchEnv(prefix));
    expect(status.code).toBe(1); // a missing object: the server cannot serve from it
    expect(status.stderr).toContain('error: 1 of ');
    expect(status.stdout).toContain(`index ${prefix}workflow-instances: outdated (0 documents)\n`);
    expect(status.stdout).toContain('normalization job task-execution-transform: not registered (run opensearch-setup)\n');
    expect(status.stdout).toContain('objects: 1 missing, 1 outdated (run opensearch-setup)\n');

    const fix = await runInit(['opensearch-setup'], openSearchEnv(prefix));
    expect(fix.code).toBe(0);
    expect(fix.stdout).toBe(lines(prefix, drifted(false)));
    expect(await refreshInterval()).toBe('1s');
    // The job the normalizer already reported on keeps its figures; only the missing one is registered.
    expect((await statusDocument(prefix))['jobs']).toEqual({
      'workflow-instance-transform': kept,
      'task-execution-transform': { state: 'started', documents_written: 0, documents_deleted: 0, last_cycle_ms: null, last_success_at_ms: null, last_error: null },
    });
  });

  it('status shows the objects, the jobs, the checkpoint and the raw events after it; --json gives the same', async () => {
    const prefix = `${ns.prefix}status-`;
    const missing = await runInit(['status', '--backend', 'opensearch', '--json'], openSearchEnv(prefix));
    expect(missing.code).toBe(1); // every object missing: exit 1, the JSON still printed
    expect(missing.stderr).toMatch(/error: (\d+) of \1 OpenSearch objects missing: run opensearch-setup/);
    const before = JSON.parse(missing.stdout) as { objects: unknown[]; upToDate: boolean; normalizer: unknown };
    expect(before.objects).toEqual(objects(prefix).map(([kind, name]) => ({ kind, name, state: 'missing' })));
    expect(before.upToDate).toBe(false);
    expect(before.normalizer).toEqual({ status: null, checkpointMs: 0, rawEventsAfterCheckpoint: 0, statusAgeMs: null, replicas: [], retentionRule: null, retentionRuleError: null });

    expect((await runInit(['opensearch-setup'], openSearchEnv(prefix))).code).toBe(0);
    const events = readFileSync(FIXTURE_PATH, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const written = await writeEventLines(ns.client, events.map((line, i) => ({ line, recordTimeMs: Date.UTC(2026, 4, 12, 9, 14, 3) + i })), prefix);
    expect(written.errors).toBe(false);
    await ns.refresh();

    const waiting = JSON.parse((await runInit(['status', '--backend', 'opensearch', '--json'], openSearchEnv(prefix))).stdout) as {
      normalizer: { checkpointMs: number; rawEventsAfterCheckpoint: number; status: { holder: string } };
      upToDate: boolean;
    };
    expect(waiting.upToDate).toBe(true);
    expect(waiting.normalizer.checkpointMs).toBe(0);
    expect(waiting.normalizer.rawEventsAfterCheckpoint).toBe(events.length);
    expect(waiting.normalizer.status.holder).toBe('');
    const text = await runInit(['status', '--backend', 'opensearch'], openSearchEnv(prefix));
    expect(text.stdout).toContain('normalization job workflow-instance-transform: started, 0 documents written, 0 deleted, last cycle never, last success never\n');
    expect(text.stdout).toContain('normalizer: registered by opensearch-setup, no normalizer has run a cycle yet (is `normalize:opensearch` deployed?)\n');
    expect(text.stdout).toContain(`checkpoint: never, ${events.length} raw events ingested after it\n`);

    // The real normalizer runs a cycle (moving the checkpoint past every event) and publishes its status.
    const normalizer = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'normalizer-a' });
    expect(await normalizer.acquire()).toBe(true);
    await normalizer.cycle();
    const checkpoint = await readCheckpoint(ns.client, `${prefix}workflow-index-normalizer`);
    const job = { state: 'started' as const, documents_written: 8, documents_deleted: 0, last_cycle_ms: 42, last_success_at_ms: checkpoint.highWaterMs, last_error: null };
    await writeStatus(ns.client, `${prefix}workflow-index-normalizer`, {
      holder: 'normalizer-a',
      checkpoint_ms: checkpoint.highWaterMs,
      lag_ms: 1500,
      raw_events_processed: events.length,
      raw_events_rejected: 0,
      failed_cycles: 2,
      jobs: { 'workflow-instance-transform': job, 'task-execution-transform': { ...job, documents_written: 30, last_error: 'timeout' } },
      updated_at_ms: checkpoint.highWaterMs,
      renormalization: {
        rules_version: 1, current_version: RULES_VERSION, state: 'running', after_instance_id: 'gen-123', instances_done: 12_345, instances_skipped: 2,
        instances_estimated: 100_000, started_at_ms: checkpoint.highWaterMs, finished_at_ms: null, last_error: 'HTTP 413 on POST /_bulk: no error body',
      },
    });
    await ns.refresh();

    const after = await runInit(['status', '--backend', 'opensearch'], openSearchEnv(prefix));
    expect(after.code).toBe(0);
    const at = new Date(checkpoint.highWaterMs).toISOString();
    expect(after.stdout).toContain(`index ${prefix}workflow-instances: up to date (8 documents)\n`);
    expect(after.stdout).toContain(`normalization job workflow-instance-transform: started, 8 documents written, 0 deleted, last cycle 42 ms, last success ${at}\n`);
    expect(after.stdout).toContain(`normalization job task-execution-transform: started, 30 documents written, 0 deleted, last cycle 42 ms, last success ${at}, last error: timeout\n`);
    expect(after.stdout).toMatch(new RegExp(`\\nnormalizer: held by normalizer-a, status published ${at} \\([0-9.]+ s ago\\), lag 1\\.50 s, ${events.length} raw events processed, 0 rejected, 2 failed cycles\\n`));
    // the normalizer's heartbeat: one live replica holding every slot (its state is published by its run loop only)
    expect(after.stdout).toContain('\nnormalizer replicas: 1 live — normalizer-a (32 of 32 slots)\n');
    expect(after.stdout).toContain(
      `\nre-normalization: running (rules 1 → ${RULES_VERSION}), 12,345 of ~100,000 instances, 2 skipped (see the ingest errors normalizer/<instance id>), last error: HTTP 413 on POST /_bulk: no error body\ncheckpoint: ${at}`,
    );
    expect(after.stdout).toContain(`checkpoint: ${at}, 0 raw events ingested after it\n`);
    expect(after.stdout.endsWith('objects: all up to date\n')).toBe(true);

    const json = JSON.parse((await runInit(['status', '--backend', 'opensearch', '--json'], openSearchEnv(prefix))).stdout) as {
      normalizer: { checkpointMs: number; rawEventsAfterCheckpoint: number; status: { holder: string; lag_ms: number }; statusAgeMs: number };
    };
    expect(json.normalizer.checkpointMs).toBe(checkpoint.highWaterMs);
    expect(json.normalizer.rawEventsAfterCheckpoint).toBe(0);
    expect(json.normalizer.status.holder).toBe('normalizer-a');
    expect(json.normalizer.status.lag_ms).toBe(1500);
    expect(json.normalizer.statusAgeMs).toBeGreaterThanOrEqual(0);
  });
});

describe('status --backend opensearch: the re-normalization line', () => {
  const base = { rules_version: RULES_VERSION, current_version: RULES_VERSION, after_instance_id: null, instances_done: 0, instances_estimated: null, started_at_ms: null, finished_at_ms: null, last_error: null };
  it('says whether the documents have this release\'s rules, how far a walk is, what it skipped and its last error', () => {
    expect(renormalizationLine({ ...base, state: 'done' })).toBe(`re-normalization: done (rules ${RULES_VERSION})`);
    expect(renormalizationLine({ ...base, state: 'done', instances_done: 5_000, instances_skipped: 1, started_at_ms: 1, finished_at_ms: Date.UTC(2026, 4, 12) })).toBe(
      `re-normalization: done (rules ${RULES_VERSION}), last walk finished 2026-05-12T00:00:00.000Z over 5,000 instances, 1 skipped (see the ingest errors normalizer/<instance id>)`,
    );
    // a status published by a release before skipping existed has no instances_skipped
    expect(renormalizationLine({ ...base, rules_version: 1, state: 'running', instances_done: 400 })).toBe(`re-normalization: running (rules 1 → ${RULES_VERSION}), 400 instances`);
    expect(renormalizationLine({ ...base, rules_version: null, state: 'unknown', last_error: 'HTTP 503: no error body' })).toBe(`re-normalization: unknown (rules ? → ${RULES_VERSION}), last error: HTTP 503: no error body`);
  });
});

describe('init-job opensearch-setup without a usable cluster', () => {
  it('an unreachable host is retried with back-off, each retry logged, then fails with exit 1 within the wait timeout', async () => {
    // Port 9 (discard) on the loopback refuses connections at once.
    const run = await runInit(['opensearch-setup', '--wait-timeout', '2'], openSearchEnv('', { OPENSEARCH_HOST: '127.0.0.1', OPENSEARCH_PORT: '9' }));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('waiting for OpenSearch http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9 (attempt 1, ');
    expect(run.stderr).toContain('retrying in 0.25 s)\n');
    expect(run.stderr).toMatch(/\nerror: OpenSearch http:\/\/127\.0\.0\.1:9 not reachable within 2 s \([0-9]+ attempts\): connect ECONNREFUSED 127\.0\.0\.1:9\n$/);
  });

  it('refused credentials fail at once, without retrying and without printing the password', async () => {
    // A stand-in for a secured cluster: what OpenSearch's security plugin answers to a wrong password (a plain-text
    // BytesRestResponse).
    let requests = 0;
    const server: Server = createServer((_request, response) => {
      requests++;
      response.writeHead(401, { 'content-type': 'text/plain; charset=UTF-8', 'www-authenticate': 'Basic realm="OpenSearch Security"' });
      response.end('Unauthorized');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const run = await runInit(
        ['opensearch-setup', '--wait-timeout', '60'],
        openSearchEnv('', { OPENSEARCH_HOST: '127.0.0.1', OPENSEARCH_PORT: String(port), OPENSEARCH_USERNAME: 'setup', OPENSEARCH_PASSWORD: 'Wrong-Secret-7' }),
      );
      expect(run.code).toBe(1);
      expect(requests).toBe(1);
      expect(run.stderr).not.toContain('waiting for');
      expect(run.stderr).toContain(`opensearch: http://127.0.0.1:${port}, user setup\n`);
      expect(run.stderr).toContain(`error: OpenSearch http://127.0.0.1:${port} refused the credentials (HTTP 401): check OPENSEARCH_USERNAME / OPENSEARCH_PASSWORD`);
      expect(`${run.stdout}${run.stderr}`).not.toContain('Wrong-Secret-7');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('lists every configuration problem at once with exit 2, attempting nothing and printing no secret', async () => {
    const run = await runInit(['opensearch-setup', '--wait-timeout', '-1'], {
      OPENSEARCH_HOST: '',
      OPENSEARCH_PORT: 'ninety',
      OPENSEARCH_PROTOCOL: 'ftp',
      OPENSEARCH_USERNAME: '',
      OPENSEARCH_PASSWORD: 'TopSecret-9',
      OPENSEARCH_CA_FILE: '/nonexistent/ca.pem',
      WI_OPENSEARCH_INDEX_PREFIX: 'Tests*',
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      [
        'configuration problems:',
        '  - OPENSEARCH_HOST is required (the OpenSearch host name, e.g. opensearch.example.svc)',
        '  - OPENSEARCH_PORT must be a port number (1-65535), got "ninety"',
        '  - OPENSEARCH_PROTOCOL must be http or https, got "ftp"',
        '  - OPENSEARCH_PASSWORD is set without OPENSEARCH_USERNAME',
        '  - OPENSEARCH_CA_FILE needs OPENSEARCH_PROTOCOL=https',
        '  - OPENSEARCH_CA_FILE "/nonexistent/ca.pem" cannot be read',
        '  - WI_OPENSEARCH_INDEX_PREFIX must be lower case without spaces or any of \\/*?"<>|,#: and must not start with -, _ or +, got "Tests*"',
        '  - --wait-timeout must be a number of seconds ≥ 0, got -1',
        '',
      ].join('\n'),
    );
  });

  it('--help documents the OpenSearch commands and settings', async () => {
    const [root, setup, status] = await Promise.all([runInit(['--help']), runInit(['opensearch-setup', '--help']), runInit(['status', '--help'])]);
    expect(root.code).toBe(0);
    expect(root.stdout).toContain('workflow-index-init opensearch-setup');
    for (const text of ['--dry-run', '--wait-timeout', 'OPENSEARCH_HOST', 'OPENSEARCH_PORT', 'OPENSEARCH_PROTOCOL', 'OPENSEARCH_USERNAME', 'OPENSEARCH_PASSWORD', 'OPENSEARCH_CA_FILE', 'WI_OPENSEARCH_INDEX_PREFIX', 'would be created']) {
      expect(setup.stdout, `opensearch-setup --help mentions ${text}`).toContain(text);
    }
    expect(status.stdout).toContain('--backend');
    expect(status.stdout).toContain('[choices: "postgresql", "opensearch"] [default: "postgresql"]');
  });
});
