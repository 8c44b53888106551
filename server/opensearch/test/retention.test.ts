// Retention against the real node: a raw index goes only when it is older than the horizon (by creation time) AND
// the normalizer has processed it; a late event after its raw index is gone gives the same documents as with the raw
// events kept; retention while Fluent Bit keeps writing (retrying refused flushes, as it does) loses nothing; instance
// retention deletes finished runs only, counts per workflow in a dry run, is idempotent, and a late event for a
// deleted run does not bring it back. "Older than the horizon" is reached by running retention at a later `now`.
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { type FluentBitRecord, writeEventLines } from '../src/fluent-bit-bulk.js';
import { OpenSearchNormalizer } from '../src/normalizer-job.js';
import { readStatus } from '../src/normalizer-checkpoint.js';
import { DEFAULT_RETENTION_RULE, writeRetentionRule } from '../src/retention/retention-rule.js';
import { runRetention } from '../src/retention/retention-run.js';
import type { TestNamespace } from './support/test-node.js';
import { openSearchState } from './support/opensearch-state.js';
import { DAY_MS, DAY_ONE, DAY_TWO, FIXTURE_LINES, leasedNormalizer, rawIndexNames, records } from './support/leased-normalizer.js';

const DAY = DAY_MS;
const lines = FIXTURE_LINES;
const instanceIds = [...new Set(lines.map((l) => (JSON.parse(l) as { instanceId: string }).instanceId))];


/** Sends a flush until every document is accepted, re-sending the whole flush as Fluent Bit does on an error. */
async function writeUntilAccepted(ns: TestNamespace, flush: readonly FluentBitRecord[], prefix: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const result = await writeEventLines(ns.client, flush, prefix);
    if (result.items.every((i) => i.status === 201 || i.status === 409)) return attempt;
    // Refused while retention blocks, deletes or the next write re-creates the index (cluster_block_exception,
    // index_not_found, illegal_argument_exception while the name is being deleted): Fluent Bit retries any item that
    // is not 201/409, and so does this writer.
    const refused = result.items.find((i) => i.status !== 201 && i.status !== 409)!;
    if (attempt > 200) throw new Error(`flush still refused after ${attempt} attempts: ${JSON.stringify(refused)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `step` as the running normalizer repeats it: a search over raw indices that one is being deleted from or created
 * in meanwhile can answer 503 (all shards failed), and the client then briefly has no living connection; the running
 * normalizer retries such a cycle after a back-off (normalizer-job.ts) without moving its checkpoint (normalizer-cycle.ts).
 */
async function retried<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= 30) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}


/** A leased normalizer whose retention runs only when a test calls it, re-reading 200 ms behind its checkpoint (and
 * auditing no further: the late window's margin has a test of its own below). */
const normalizer = (ns: TestNamespace, prefix: string): Promise<OpenSearchNormalizer> => leasedNormalizer(ns.client, prefix, { overlapMs: 200, lateWindowMs: 200, retentionIntervalMs: 0 });

async function waitPast(ms: number): Promise<void> {
  const until = Date.now() + ms + 5;
  while (Date.now() < until) await new Promise((r) => setTimeout(r, 10));
}

describeOpenSearch('OpenSearch retention', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  it('never deletes a raw index the normalizer has not processed, nor one within the horizon', async () => {
    const prefix = `${ns.prefix}unprocessed-`;
    const n = await normalizer(ns, prefix);
    await writeEventLines(ns.client, records(lines.slice(0, 40), DAY_ONE), prefix);
    await ns.refresh();
    const later = Date.now() + 8 * DAY;
    // nothing normalized yet: every old index holds unprocessed events
    const before = await n.retention(later);
    expect(before.raw.deleted).toEqual([]);
    expect(before.raw.decisions.length).toBeGreaterThan(0);
    expect(before.raw.decisions.every((d) => d.action === 'keep' && d.reason.startsWith('holds events'))).toBe(true);
    // a write block left by a pass that stopped between its block and its delete is lifted (Fluent Bit would retry
    // for ever), and the index is kept
    const blocked = before.raw.decisions[0]!.index;
    await ns.client.transport.request({ method: 'PUT', path: `/${blocked}/_settings`, body: { index: { 'blocks.write': true } } });
    expect((await n.retention(later)).raw.deleted).toEqual([]);
    const blocks = await ns.client.transport.request({ method: 'GET', path: `/${blocked}/_settings/index.blocks.write` });
    expect(JSON.stringify(blocks.body)).not.toContain('"write":"true"');
    // within the horizon nothing goes, processed or not
    await n.cycle();
    expect((await n.retention(Date.now())).raw.deleted).toEqual([]);
    // normalized, but the newest event is within the overlap the normalizer re-reads: kept
    expect((await n.retention(later)).raw.deleted).toEqual([]);
    // day two arrives; until it is normalized the checkpoint stays, so day one still counts as unprocessed
    await waitPast(200);
    await writeEventLines(ns.client, records(lines.slice(40), DAY_TWO), prefix);
    await ns.refresh();
    const waiting = await n.retention(later);
    expect(waiting.raw.deleted).toEqual([]);
    expect(waiting.raw.decisions.every((d) => d.action === 'keep' && d.reason.startsWith('holds events'))).toBe(true);
    // normalized: the checkpoint is past day one's newest event plus the overlap, so day one's indices go and day
    // two's (its newest event is within the overlap) stay
    await n.cycle();
    const dayOne = (await rawIndexNames(ns.client, prefix)).filter((i) => i.endsWith('2026.05.12'));
    expect(dayOne.length).toBeGreaterThan(0);
    const done = await n.retention(later);
    expect(done.raw.deleted.map((d) => d.index).sort()).toEqual(dayOne);
    const left = await rawIndexNames(ns.client, prefix);
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((i) => i.endsWith('2026.05.13'))).toBe(true);
    const state = await openSearchState(ns.client, n.names);
    expect(state.instances.filter((i) => !i.placeholder)).toHaveLength(instanceIds.length);
  }, 120_000);

  it('keeps a processed raw index while its newest event is within the late window the normalizer audits', async () => {
    const prefix = `${ns.prefix}late-window-`;
    const n = await leasedNormalizer(ns.client, prefix, { overlapMs: 200, lateWindowMs: 3000, retentionIntervalMs: 0 });
    await writeEventLines(ns.client, records(lines.slice(0, 20), DAY_ONE), prefix);
    await ns.refresh();
    await n.cycle();
    const marker = (i: number): string[] => [`{"instanceId":"marker-${i}","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"marker"}`];
    const later = Date.now() + 8 * DAY;
    // past the overlap, within the late window: a write stamped then may still become searchable
    await waitPast(200);
    await writeEventLines(ns.client, records(marker(1), DAY_TWO), prefix);
    await ns.refresh();
    await n.cycle();
    const within = await n.retention(later);
    expect(within.raw.deleted).toEqual([]);
    const dayOne = within.raw.decisions.filter((d) => d.index.endsWith('2026.05.12'));
    expect(dayOne.length).toBeGreaterThan(0);
    expect(dayOne.every((d) => d.action === 'keep' && d.reason.startsWith('holds events'))).toBe(true);
    // `init-job prune` reads the window from the checkpoints the normalizer stored
    const pruned = await runRetention(ns.client, { prefix, names: n.names, rule: DEFAULT_RETENTION_RULE, nowMs: later, dryRun: true });
    expect(pruned.raw.decisions.filter((d) => d.index.endsWith('2026.05.12')).every((d) => d.action === 'keep')).toBe(true);
    // past the late window: day one goes
    await waitPast(3000);
    await writeEventLines(ns.client, records(marker(2), DAY_TWO + 1000), prefix);
    await ns.refresh();
    await n.cycle();
    const past = await n.retention(later);
    expect(past.raw.deleted.map((d) => d.index).sort()).toEqual(dayOne.map((d) => d.index).sort());
  }, 120_000);

  it('a late event after its raw index is deleted gives the same documents as with the raw events kept', async () => {
    const kept = await normalizer(ns, `${ns.prefix}kept-`);
    const pruned = await normalizer(ns, `${ns.prefix}pruned-`);
    // every event but each instance's last one arrives first; the last ones arrive late, after retention
    const lastOf = new Map(lines.map((l, i) => [(JSON.parse(l) as { instanceId: string }).instanceId, i]));
    const late = new Set(lastOf.values());
    const early = lines.filter((_, i) => !late.has(i));
    const tail = lines.filter((_, i) => late.has(i));
    for (const n of [kept, pruned]) {
      const prefix = n === kept ? `${ns.prefix}kept-` : `${ns.prefix}pruned-`;
      await writeEventLines(ns.client, records(early, DAY_ONE), prefix);
      await ns.refresh();
      await n.cycle();
    }
    await waitPast(200);
    // a marker event on another day moves the checkpoint past the overlap, so day one is processed for certain
    const marker = [`{"instanceId":"marker","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"marker"}`];
    for (const n of [kept, pruned]) {
      await writeEventLines(ns.client, records(marker, DAY_TWO), n === kept ? `${ns.prefix}kept-` : `${ns.prefix}pruned-`);
      await ns.refresh();
      await n.cycle();
    }
    const removed = await pruned.retention(Date.now() + 8 * DAY);
    expect(removed.raw.deleted.map((d) => d.index).filter((i) => i.endsWith('2026.05.12')).length).toBeGreaterThan(0);
    expect((await rawIndexNames(ns.client, `${ns.prefix}pruned-`)).some((i) => i.endsWith('2026.05.12'))).toBe(false);
    for (const n of [kept, pruned]) {
      await writeEventLines(ns.client, records(tail, DAY_TWO + 1000), n === kept ? `${ns.prefix}kept-` : `${ns.prefix}pruned-`);
      await ns.refresh();
      await n.cycle();
    }
    const expected = await openSearchState(ns.client, kept.names);
    expect(expected.instances.filter((i) => !i.placeholder).length).toBe(instanceIds.length + 1);
    expect(await openSearchState(ns.client, pruned.names)).toEqual(expected);
  }, 120_000);

  it('retention while Fluent Bit keeps writing into the index being deleted loses nothing', async () => {
    const reference = await normalizer(ns, `${ns.prefix}ref-`);
    const busy = await normalizer(ns, `${ns.prefix}busy-`);
    const busyPrefix = `${ns.prefix}busy-`;
    // small flushes of fixture events, all with day one's record time (a backfill into the old-named index), each
    // followed by a "tick" run on day two, so the checkpoint moves past day one's newest event and the day-one index
    // becomes deletable again and again while the next flush for it is on its way
    const flushes: FluentBitRecord[][] = [];
    for (let i = 0; i < lines.length; i += 4) {
      flushes.push(records(lines.slice(i, i + 4), DAY_ONE + i));
      flushes.push(records([`{"instanceId":"tick-${i}","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"tick"}`], DAY_TWO + i));
    }
    let writing = true;
    const writer = (async () => {
      try {
        for (const flush of flushes) {
          await writeUntilAccepted(ns, flush, busyPrefix);
          await waitPast(250);
        }
      } finally {
        writing = false;
      }
    })();
    let deleted = 0;
    while (writing) {
      await retried(() => ns.refresh());
      await retried(() => busy.cycle());
      deleted += (await retried(() => busy.retention(Date.now() + 8 * DAY))).raw.deleted.length;
    }
    await writer;
    await ns.refresh();
    await retried(() => busy.cycle());
    expect(deleted).toBeGreaterThan(0);
    await writeEventLines(ns.client, flushes.flat(), `${ns.prefix}ref-`);
    await ns.refresh();
    await reference.cycle();
    const expected = await openSearchState(ns.client, reference.names);
    expect(expected.instances.filter((i) => !i.placeholder).length).toBe(instanceIds.length + flushes.length / 2);
    expect(await openSearchState(ns.client, busy.names)).toEqual(expected);
  }, 300_000);

  it('the running normalizer applies the rule periodically, reports it in its status and metrics, and a broken rule fails retention only', async () => {
    const prefix = `${ns.prefix}loop-`;
    await applyRawSchema(ns.client, { prefix });
    const n = new OpenSearchNormalizer({ client: ns.client, prefix, intervalMs: 100, overlapMs: 200, lateWindowMs: 200, retentionIntervalMs: 300 });
    await n.setup();
    // an operator's rule: horizon 0 days, so every processed raw index is due
    await writeRetentionRule(ns.client, n.names.normalizerState, { raw_events_retention_days: 0, instance_retention_days: null });
    await writeEventLines(ns.client, records(lines, DAY_ONE), prefix);
    const controller = new AbortController();
    const running = n.run(controller.signal);
    const until = async (what: string, check: () => Promise<boolean>): Promise<void> => {
      for (let i = 0; i < 600 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
      if (!(await check())) throw new Error(`timed out waiting for ${what}`);
    };
    const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
      const m = (await n.metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
      return Number(m?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0);
    };
    try {
      await until('the fixture normalized', async () => (await openSearchState(ns.client, n.names)).instances.length === instanceIds.length);
      await waitPast(200);
      // a later event moves the checkpoint past day one; the next retention pass deletes day one's indices
      await writeEventLines(ns.client, records([`{"instanceId":"tick","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"tick"}`], DAY_TWO), prefix);
      await until('day one deleted', async () => !(await rawIndexNames(ns.client, prefix)).some((i) => i.endsWith('2026.05.12')));
      // the status shows the last pass (later passes find nothing more to delete); the counter adds them up
      await until('the status reporting a pass', async () => (await readStatus(ns.client, n.names.normalizerState))?.retention !== undefined);
      expect(await metric('workflow_index_normalizer_retention_deleted_total', { kind: 'raw_index' })).toBe(2);
      const status = await readStatus(ns.client, n.names.normalizerState);
      expect(status?.retention).toMatchObject({ raw_events_retention_days: 0, instance_retention_days: null, last_error: null });

      // a rule an operator broke: retention fails and says so, normalization goes on
      await ns.client.transport.request({ method: 'PUT', path: `/${n.names.normalizerState}/_doc/retention`, querystring: { refresh: 'true' }, body: { kind: 'retention', raw_events_retention_days: 'a week' } });
      await until('a failed retention pass', async () => (await metric('workflow_index_normalizer_retention_failures_total')) > 0);
      await writeEventLines(ns.client, records([`{"instanceId":"after","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"after"}`], DAY_TWO), prefix);
      await until('normalization going on', async () => (await openSearchState(ns.client, n.names)).instances.some((i) => i.id === 'after'));
      await until('the status saying why', async () => ((await readStatus(ns.client, n.names.normalizerState))?.retention?.last_error ?? '').includes('raw_events_retention_days must be a whole number'));
      expect(n.healthy).toBe(true);
    } finally {
      controller.abort();
      await running;
    }
  }, 180_000);

  it('instance retention: finished runs older than the horizon go (dry run counts per workflow), RUNNING stays, a late event does not bring a run back, a second pass deletes nothing', async () => {
    const prefix = `${ns.prefix}instances-`;
    const n = await normalizer(ns, prefix);
    const unfinished = [
      `{"instanceId":"still-running","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"long"}`,
      `{"instanceId":"still-running","eventType":"io.serverlessworkflow.task.started.v1","timestamp":1.7785772436E9,"taskPosition":"do/0/wait"}`,
      `{"instanceId":"suspended","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"long"}`,
      `{"instanceId":"suspended","eventType":"io.serverlessworkflow.workflow.suspended.v1","timestamp":1.7785772436E9}`,
      `{"instanceId":"placeholder-only","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":1.7785772436E9,"taskPosition":"do/0/wait"}`,
    ];
    await writeEventLines(ns.client, records([...lines, ...unfinished], DAY_ONE), prefix);
    await ns.refresh();
    await n.cycle();
    const before = await openSearchState(ns.client, n.names);
    const finished = before.instances.filter((i) => ['COMPLETED', 'FAULTED', 'CANCELLED'].includes(i.status));
    const running = before.instances.filter((i) => !['COMPLETED', 'FAULTED', 'CANCELLED'].includes(i.status));
    expect(finished.length).toBeGreaterThan(0);
    expect(running.map((i) => `${i.id} ${i.status}`)).toEqual(['placeholder-only RUNNING', 'still-running RUNNING', 'suspended SUSPENDED']);
    // fixture runs ended in 2026-05; a one-day horizon at "now" covers them all
    const { runRetention } = await import('../src/retention/retention-run.js');
    const rule = { raw_events_retention_days: 7, instance_retention_days: 1 };
    const dry = await runRetention(ns.client, { prefix, names: n.names, rule, dryRun: true, batchSize: 3 });
    expect(dry.instances!.instances).toBe(finished.length);
    expect(dry.instances!.executions).toBe(before.executions.filter((e) => finished.some((f) => f.id === e.instance_id)).length);
    expect(dry.instances!.byWorkflow.reduce((s, w) => s + w.instances, 0)).toBe(finished.length);
    const perWorkflow = new Map<string, number>();
    for (const f of finished) perWorkflow.set(`${f.namespace}/${f.name}`, (perWorkflow.get(`${f.namespace}/${f.name}`) ?? 0) + 1);
    expect(new Map(dry.instances!.byWorkflow.map((w) => [`${w.namespace}/${w.name}`, w.instances]))).toEqual(perWorkflow);
    expect(await openSearchState(ns.client, n.names)).toEqual(before);

    await writeRetentionRule(ns.client, n.names.normalizerState, rule);
    const real = await n.retention();
    expect(real.instances!.instances).toBe(finished.length);
    const after = await openSearchState(ns.client, n.names);
    expect(after.instances.map((i) => i.id)).toEqual(running.map((i) => i.id));
    expect(after.executions).toEqual(before.executions.filter((e) => running.some((r) => r.id === e.instance_id)));
    const storedOfFinished = await ns.client.transport.request({ method: 'POST', path: `/${n.names.eventStore}/_count`, body: { query: { bool: { filter: [{ terms: { instance_id: finished.map((f) => f.id) } }], must_not: [{ term: { kind: 'pruned' } }] } } } });
    expect((storedOfFinished.body as { count: number }).count).toBe(0);

    // idempotent
    expect((await n.retention()).instances!.instances).toBe(0);
    // a late event for a deleted run is recorded, not applied
    const victim = finished[0]!.id;
    const lateLine = lines.find((l) => (JSON.parse(l) as { instanceId: string }).instanceId === victim)!;
    await writeEventLines(ns.client, records([lateLine], DAY_TWO), prefix);
    await ns.refresh();
    await n.cycle();
    const final = await openSearchState(ns.client, n.names);
    expect(final.instances.map((i) => i.id)).toEqual(running.map((i) => i.id));
    expect(final.ingestErrorReasons.some((r) => r.includes(`instance ${victim} was deleted by instance retention`))).toBe(true);
  }, 120_000);
});
