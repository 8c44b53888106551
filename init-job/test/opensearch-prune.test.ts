// The retention rule as `opensearch-setup` creates it and `status` shows it, and `prune --backend opensearch` as the
// real process against the real node, each test under its own prefix: the rule from the environment, an operator's
// edit kept by a rerun, a bad value refused with the other problems; prune's dry run counts per raw index and per
// workflow and deletes nothing, the real run deletes exactly that (never an index the normalizer has not processed,
// never a RUNNING run), and a second run deletes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeEventLines } from '@workflow-index/opensearch';
import { DAY_ONE, DAY_TWO, FIXTURE_LINES as lines, leasedNormalizer, rawIndexNames, records } from '@workflow-index/opensearch/testing';
import { createTestNamespace, OPENSEARCH_URL, openSearchReachable, type TestNamespace } from '@workflow-index/opensearch/testing';
import { runInit } from '@workflow-index/testkit';

const available = await openSearchReachable();
const node = new URL(OPENSEARCH_URL);
const RUNNING = `{"instanceId":"still-running","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"long"}`;

function env(prefix: string, overrides: Record<string, string> = {}): Record<string, string> {
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
    ...overrides,
  };
}

describe.skipIf(!available)('init-job OpenSearch retention against a real node', () => {
  let ns: TestNamespace;
  beforeAll(() => {
    ns = createTestNamespace();
  });
  afterAll(async () => {
    await ns?.drop();
  });

  async function rule(prefix: string): Promise<Record<string, unknown>> {
    const response = await ns.client.transport.request({ method: 'GET', path: `/${prefix}workflow-index-normalizer/_doc/retention` });
    return (response.body as { _source: Record<string, unknown> })._source;
  }

  it('setup creates the retention rule from the environment; a rerun keeps an operator\'s edit; status shows it', async () => {
    const prefix = `${ns.prefix}rule-`;
    const first = await runInit(['opensearch-setup'], env(prefix, { RAW_EVENTS_RETENTION_DAYS: '3' }));
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`retention rule ${prefix}workflow-index-normalizer/_doc/retention: created\n`);
    expect(await rule(prefix)).toMatchObject({ kind: 'retention', raw_events_retention_days: 3, instance_retention_days: null });

    // an operator changes the document; a rerun without the variables keeps it
    await ns.client.transport.request({ method: 'POST', path: `/${prefix}workflow-index-normalizer/_update/retention`, querystring: { refresh: 'true' }, body: { doc: { instance_retention_days: 90 } } });
    const rerun = await runInit(['opensearch-setup'], env(prefix));
    expect(rerun.stdout).toContain(`retention rule ${prefix}workflow-index-normalizer/_doc/retention: unchanged\n`);
    expect(await rule(prefix)).toMatchObject({ raw_events_retention_days: 3, instance_retention_days: 90 });
    const status = await runInit(['status', '--backend', 'opensearch'], env(prefix));
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('retention rule: raw indices deleted 3 days after creation once normalized; finished runs deleted 90 days after they ended\n');
    expect(status.stdout).toContain('retention: no pass yet');

    // a variable set explicitly wins over the stored value (dry run first: nothing changes)
    const dry = await runInit(['opensearch-setup', '--dry-run'], env(prefix, { INSTANCE_RETENTION_DAYS: 'off' }));
    expect(dry.stdout).toContain(`retention rule ${prefix}workflow-index-normalizer/_doc/retention: would be updated\n`);
    expect(await rule(prefix)).toMatchObject({ instance_retention_days: 90 });
    const off = await runInit(['opensearch-setup'], env(prefix, { INSTANCE_RETENTION_DAYS: 'off' }));
    expect(off.stdout).toContain(`retention rule ${prefix}workflow-index-normalizer/_doc/retention: updated\n`);
    expect(await rule(prefix)).toMatchObject({ raw_events_retention_days: 3, instance_retention_days: null });
    const json = JSON.parse((await runInit(['status', '--backend', 'opensearch', '--json'], env(prefix))).stdout) as { normalizer: { retentionRule: unknown } };
    expect(json.normalizer.retentionRule).toEqual({ raw_events_retention_days: 3, instance_retention_days: null });
  });

  it('setup refuses a bad horizon together with every other configuration problem', async () => {
    const run = await runInit(['opensearch-setup'], env(`${ns.prefix}bad-`, { RAW_EVENTS_RETENTION_DAYS: 'a week', OPENSEARCH_PORT: 'ninety' }));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('RAW_EVENTS_RETENTION_DAYS must be a whole number of days ≥ 0, got "a week"');
    expect(run.stderr).toContain('OPENSEARCH_PORT');
  });

  it('prune: the dry run counts per raw index and per workflow and deletes nothing; the real run deletes that, never unprocessed events or a RUNNING run; a second run deletes nothing', async () => {
    const prefix = `${ns.prefix}prune-`;
    expect((await runInit(['opensearch-setup'], env(prefix))).code).toBe(0);
    const normalizer = await leasedNormalizer(ns.client, prefix, { overlapMs: 200, lateWindowMs: 200, retentionIntervalMs: 0 });
    await writeEventLines(ns.client, records([...lines, RUNNING], DAY_ONE), prefix);
    await ns.refresh();
    await normalizer.cycle();
    // later events on another day move the checkpoint past day one; they stay unprocessed
    await new Promise((r) => setTimeout(r, 300));
    const marker = `{"instanceId":"marker","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"marker"}`;
    await writeEventLines(ns.client, [{ line: marker, recordTimeMs: DAY_TWO }], prefix);
    await ns.refresh();
    await normalizer.cycle();
    const late = `{"instanceId":"late","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"late"}`;
    await writeEventLines(ns.client, [{ line: late, recordTimeMs: DAY_TWO + 86_400_000 }], prefix);
    await ns.refresh();
    const dayOne = (await rawIndexNames(ns.client, prefix)).filter((i) => i.endsWith('2026.05.12'));
    expect(dayOne).toHaveLength(2);
    const all = await rawIndexNames(ns.client, prefix);

    const args = ['prune', '--backend', 'opensearch', '--raw-retention-days', '0', '--instance-retention-days', '0'];
    const dry = await runInit([...args, '--dry-run'], env(prefix));
    expect(dry.code).toBe(0);
    for (const index of dayOne) expect(dry.stdout).toMatch(new RegExp(`raw index ${index}: would be deleted, [0-9]+ events`));
    expect(dry.stdout).toMatch(new RegExp(`raw index ${prefix}workflow-instance-events-raw-2026.05.14: kept, 1 event \\(holds events the normalizer has not processed yet`));
    expect(dry.stdout).toContain(`raw events: 2 indices with ${lines.length + 1} events would be deleted`);
    expect(dry.stdout).toMatch(/workflow [^\n]+: [0-9]+ finished runs, [0-9]+ task executions, [0-9]+ stored events\n/);
    expect(dry.stdout).toMatch(/finished runs that ended before [^:]+:[^:]+:[^:]+: 8 runs, [0-9]+ task executions, [0-9]+ stored events would be deleted/);
    expect(await rawIndexNames(ns.client, prefix)).toEqual(all);

    const real = await runInit(args, env(prefix));
    expect(real.code).toBe(0);
    expect(real.stdout).toContain(`raw events: 2 indices with ${lines.length + 1} events deleted`);
    expect(real.stdout).toMatch(/: 8 runs, [0-9]+ task executions, [0-9]+ stored events deleted/);
    expect(await rawIndexNames(ns.client, prefix)).toEqual(all.filter((i) => !dayOne.includes(i)));
    await ns.refresh();
    const left = await ns.client.transport.request({ method: 'POST', path: `/${prefix}workflow-instances/_search`, body: { size: 100, _source: false, sort: [{ id: 'asc' }] } });
    expect((left.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id)).toEqual(['marker', 'still-running']);

    const again = await runInit(args, env(prefix));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('raw events: 0 indices with 0 events deleted');
    expect(again.stdout).toMatch(/: 0 runs, 0 task executions, 0 stored events deleted/);
  }, 120_000);
});
