// A stale normalizer (one that lost its lease mid-cycle) can never bring back an execution whose id disappeared from
// its run. The stale writer is simulated against the real node: its computation of the run is planned and held, a
// newer computation (a late, earlier loop iteration arrives and takes over the id) withdraws the document, the delete
// memory OpenSearch keeps (`index.gc_deletes`, 60 s by default) is set to nothing instead of waiting, and then the held
// bulk is sent. A plain delete is forgotten and the stale write re-creates the document (the first test: the hazard is
// real); the superseded marker the normalizer writes instead is a live document that keeps its version, so the stale
// write is refused and nothing stale is served (the second test). Runs instance retention deletes are not replaced by
// markers (retention is there to free the space): there, each bulk's lease check withholds a replaced normalizer's
// writes (the third test), which leaves only a bulk executing more than index.gc_deletes after its writer's check.
import { expect, vi } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import { LeaseLostError, OpenSearchNormalizer } from '../src/normalizer-job.js';
import { type BulkLine, documentId, planRecompute, sendBulk, writeRecompute } from '../src/normalizer-recompute.js';
import { createOpenSearchReader } from '../src/reader/opensearch-reader.js';
import { writeRetentionRule } from '../src/retention/retention-rule.js';
import { DAY_ONE, DAY_TWO, leasedNormalizer, records } from './support/leased-normalizer.js';
import { openSearchState } from './support/opensearch-state.js';
import type { TestNamespace } from './support/test-node.js';

const RUN = 'loop-run';
const W = 'io.serverlessworkflow.workflow.';
const T = 'io.serverlessworkflow.task.';
const at = (s: number): string => `2026-05-12T09:00:0${s}.000000Z`;
const task = (type: 'started' | 'completed', s: number, extra: Record<string, unknown>): string =>
  JSON.stringify({ instanceId: RUN, eventType: `${T}${type}.v1`, timestamp: at(s), ...(type === 'started' ? { startTime: at(s) } : { endTime: at(s) }), taskPosition: 'do/0/each', taskName: 'each', ...extra });
// Two iterations of a loop at one instant: ids `…:do/0/each` and `…:do/0/each@<µs>#2`.
const FIRST = [
  JSON.stringify({ instanceId: RUN, eventType: `${W}started.v1`, timestamp: at(0), startTime: at(0), workflowName: 'loop' }),
  task('started', 2, { input: { i: 1 } }),
  task('completed', 2, {}),
  task('started', 2, { input: { i: 2 } }),
  task('completed', 2, { output: { o: 2 } }),
];
// A late, earlier iteration: the ids become `…:do/0/each`, `…@<µs>` and `…@<µs>#3`, so `…#2` disappears.
const LATE = [task('started', 1, { input: { i: 0 } }), task('completed', 1, {})];
const GONE = `${RUN}:do/0/each@${Date.UTC(2026, 4, 12, 9, 0, 2) * 1000}#2`;

async function deliver(ns: TestNamespace, n: OpenSearchNormalizer, prefix: string, lines: readonly string[], recordTimeMs: number): Promise<void> {
  const written = await writeEventLines(ns.client, records(lines, recordTimeMs), prefix);
  expect(written.items.filter((i) => i.status !== 201)).toEqual([]);
  await ns.refresh();
  for (let guard = 0; guard < 10; guard++) if ((await n.cycle()).newRawEvents === 0) return;
  throw new Error('no quiescence in 10 cycles');
}

/** What OpenSearch keeps of a delete's version for 60 s by default, kept for no time at all: "60 s later", now. */
async function forgetDeletes(ns: TestNamespace, index: string): Promise<void> {
  await ns.client.transport.request({ method: 'PUT', path: `/${index}/_settings`, body: { index: { gc_deletes: '0ms' } } });
}

async function document(ns: TestNamespace, index: string, id: string): Promise<Record<string, unknown> | null> {
  const response = await ns.client.transport.request({ method: 'GET', path: `/${index}/_doc/${encodeURIComponent(documentId(id))}` }, { ignore: [404] });
  return response.statusCode === 404 ? null : (response.body as { _source: Record<string, unknown> })._source;
}

/**
 * Past the delete window: OpenSearch prunes forgotten deletes on a refresh, by a clock it updates every 200 ms, so a
 * probe shows when it has happened: a probe document deleted with version 10 after everything before, then written
 * with version 7 until that write is accepted (the probe's delete, and every older one, forgotten).
 */
async function pastTheWindow(ns: TestNamespace, index: string): Promise<void> {
  const probe = (version: number): Promise<{ statusCode: number | null }> =>
    ns.client.transport.request({ method: 'PUT', path: `/${index}/_doc/window-probe`, querystring: { version: String(version), version_type: 'external_gte' }, body: { id: 'window-probe', placeholder: true } }, { ignore: [409] });
  expect((await probe(5)).statusCode).toBe(201);
  await ns.client.transport.request({ method: 'DELETE', path: `/${index}/_doc/window-probe`, querystring: { version: '10', version_type: 'external_gte' } });
  await vi.waitFor(async () => {
    await ns.client.transport.request({ method: 'POST', path: `/${index}/_refresh` });
    expect((await probe(7)).statusCode).toBe(201);
  }, { timeout: 30_000, interval: 100 });
  await ns.client.transport.request({ method: 'DELETE', path: `/${index}/_doc/window-probe`, querystring: { version: '8', version_type: 'external_gte', refresh: 'true' } });
}

describeOpenSearch('OpenSearch: a stale normalizer cannot bring back a superseded execution', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  it('the hazard: a delete with the newer version is forgotten after index.gc_deletes, and the stale bulk re-creates the document', async () => {
    const prefix = `${ns.prefix}plain-delete-`;
    const n = await leasedNormalizer(ns.client, prefix);
    await forgetDeletes(ns, n.names.taskExecutions);
    await deliver(ns, n, prefix, FIRST, DAY_ONE);
    const stale = await planRecompute(ns.client, n.names, [RUN], new Map());
    const staleWrite = stale.lines.find((l) => (l.action['index'] as { _id?: string } | undefined)?._id === documentId(GONE))!;
    expect(staleWrite).toBeDefined();
    // what the normalizer did before superseded markers: a delete with the newer computation's (greater) version
    const version = (staleWrite.action['index'] as { version: number }).version + 1000;
    const deleteLine: BulkLine = { action: { delete: { _index: n.names.taskExecutions, _id: documentId(GONE), version, version_type: 'external_gte' } } };
    expect(await sendBulk(ns.client, [deleteLine], true)).toEqual([]);
    expect(await document(ns, n.names.taskExecutions, GONE)).toBeNull();
    await pastTheWindow(ns, n.names.taskExecutions);
    expect(await sendBulk(ns.client, [staleWrite], true)).toEqual([]);
    expect((await document(ns, n.names.taskExecutions, GONE))?.['id']).toBe(GONE); // back
  }, 60_000);

  it('a superseded execution stays withdrawn: the stale bulk, sent after the delete window, is refused and nothing stale is served', async () => {
    const prefix = `${ns.prefix}superseded-`;
    const n = await leasedNormalizer(ns.client, prefix);
    await forgetDeletes(ns, n.names.taskExecutions);
    await deliver(ns, n, prefix, FIRST, DAY_ONE);
    expect((await document(ns, n.names.taskExecutions, GONE))?.['execution_index']).toBe(2);
    // the stale normalizer computes the run and holds its bulk…
    const stale = await planRecompute(ns.client, n.names, [RUN], new Map());
    expect(stale.executions).toBe(2);
    // …the newer one normalizes the late iteration: `#2` is withdrawn…
    await deliver(ns, n, prefix, LATE, DAY_TWO);
    expect(await document(ns, n.names.taskExecutions, GONE)).toEqual({ id: GONE, instance_id: RUN, placeholder: true, superseded: true });
    const newer = await openSearchState(ns.client, n.names);
    expect(newer.executions.map((e) => e.id)).toEqual([`${RUN}:do/0/each`, GONE.replace('#2', ''), GONE.replace('#2', '#3')]);
    const reader = createOpenSearchReader({ client: ns.client, prefix });
    const served = async (): Promise<string[]> => ((await reader.getInstance(RUN, { payloads: false, tasks: { payloads: false } }))?.tasks ?? []).map((t) => t.id);
    const servedNewer = await served();
    expect(servedNewer).toEqual(newer.executions.map((e) => e.id));
    // …and the stale bulk arrives after OpenSearch would have forgotten a delete
    await pastTheWindow(ns, n.names.taskExecutions);
    const result = await writeRecompute(ns.client, n.names, stale, { refresh: true });
    expect(result.rejectedEvents).toBe(0); // version conflicts: refused, nothing recorded as an error
    expect(await document(ns, n.names.taskExecutions, GONE)).toEqual({ id: GONE, instance_id: RUN, placeholder: true, superseded: true });
    expect(await openSearchState(ns.client, n.names)).toEqual(newer);
    expect(await served()).toEqual(servedNewer);
    expect((await reader.ingestionStats()).taskExecutions).toBe(3); // the marker is no execution
    expect((await reader.getTask(GONE, { payloads: false }))).toBeNull();

    // the run's next recomputation keeps the marker, at the run's newest version
    await deliver(ns, n, prefix, [task('completed', 3, { taskPosition: 'do/1/after', taskName: 'after' })], DAY_TWO + 1000);
    const marker = await ns.client.transport.request({ method: 'GET', path: `/${n.names.taskExecutions}/_doc/${encodeURIComponent(GONE)}` });
    const instance = await ns.client.transport.request({ method: 'GET', path: `/${n.names.workflowInstances}/_doc/${RUN}` });
    expect((marker.body as { _version: number })._version).toBe((instance.body as { _version: number })._version);
    expect((await openSearchState(ns.client, n.names)).executions.map((e) => e.id)).not.toContain(GONE);
  }, 60_000);

  it('a replaced normalizer withholds its bulk: a run instance retention deleted is not written back, whenever the bulk would arrive', async () => {
    const prefix = `${ns.prefix}fenced-`;
    const old = await leasedNormalizer(ns.client, prefix, { holder: 'old', leaseTtlMs: 1 });
    for (const index of [old.names.workflowInstances, old.names.taskExecutions]) await forgetDeletes(ns, index);
    const finished = [...FIRST, JSON.stringify({ instanceId: RUN, eventType: `${W}completed.v1`, timestamp: at(5), endTime: at(5), status: 'COMPLETED' })];
    await deliver(ns, old, prefix, finished, DAY_ONE);
    const held = await planRecompute(ns.client, old.names, [RUN], new Map());
    expect(held.instances).toBe(1);
    // its lease expires; a new normalizer takes over and instance retention deletes the finished run
    const current = await leasedNormalizer(ns.client, prefix, { holder: 'current', retentionIntervalMs: 0 });
    await writeRetentionRule(ns.client, current.names.normalizerState, { raw_events_retention_days: 7, instance_retention_days: 1 });
    expect((await current.retention()).instances?.instances).toBe(1);
    for (const index of [old.names.workflowInstances, old.names.taskExecutions]) await pastTheWindow(ns, index);
    // the old normalizer's bulk: withheld by its lease check, nothing written
    await expect(writeRecompute(ns.client, old.names, held, { refresh: true, fence: old.fence })).rejects.toBeInstanceOf(LeaseLostError);
    const state = await openSearchState(ns.client, old.names);
    expect([state.instances, state.executions]).toEqual([[], []]);
    await current.fence(); // the holder's own check passes
  }, 60_000);

  it('the check guards the second bulk too: a normalizer replaced after its documents were sent records no refused document and marks no run', async () => {
    const prefix = `${ns.prefix}fenced-records-`;
    const old = await leasedNormalizer(ns.client, prefix, { holder: 'old', leaseTtlMs: 1 });
    await deliver(ns, old, prefix, FIRST, DAY_ONE);
    const plan = await planRecompute(ns.client, old.names, [RUN], new Map());
    // one execution document the strict mapping refuses, so the write has a second bulk: the refused document's
    // record and the run's task_states_complete = false
    const refusedAt = plan.lines.findIndex((l) => (l.action['index'] as { _index?: string } | undefined)?._index === old.names.taskExecutions);
    expect(refusedAt).toBeGreaterThanOrEqual(0);
    const lines = plan.lines.map((l, i) => (i === refusedAt ? { ...l, document: { ...(l.document as object), not_a_field: 1 } } : l));
    // the old holder's lease expired (1 ms); right after its first check passes, a new process takes the lease over,
    // so the take-over lands between the two bulks
    let checks = 0;
    const fence = async (): Promise<void> => {
      checks++;
      await old.fence();
      if (checks === 1) expect(await new OpenSearchNormalizer({ client: ns.client, prefix, holder: 'current' }).acquire()).toBe(true);
    };
    const errorsBefore = (await openSearchState(ns.client, old.names)).ingestErrorReasons;
    await expect(writeRecompute(ns.client, old.names, { ...plan, lines }, { refresh: true, fence })).rejects.toBeInstanceOf(LeaseLostError);
    expect(checks).toBe(2);
    const state = await openSearchState(ns.client, old.names);
    expect(state.ingestErrorReasons).toEqual(errorsBefore); // no record of the refused document
    expect((await document(ns, old.names.workflowInstances, RUN))?.['task_states_complete']).toBe(true); // no mark
  }, 60_000);
});
