// Re-normalization after a change of the rules (normalizer-renormalize.ts), against the real node. An "old
// installation" is one normalized by the current code whose documents were then put back in the previous shape, as
// the previous release wrote them: instance documents without task states, with the same external version, an
// execution document under an id the current rules no longer produce, no rules version recorded, and its raw indices
// deleted by retention (so only the event store can bring the documents up to date). Superseded execution markers
// (what replaces an execution whose id disappeared; never served) are compared apart. The job must then give exactly
// the documents a fresh normalization of the same events gives, record the version, resume after a restart, let new
// events through meanwhile without a stale page replacing them, and never bring back a run instance retention deleted.
import type { Client } from '@opensearch-project/opensearch';
import fc from 'fast-check';
import { expect, vi } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { eventStoreIndex, stringifyLossless } from '../src/event-store.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import { type JsonObject, parseLosslessJson } from '@workflow-index/events';
import { type NormalizedIndexNames, applyNormalizedIndices, ingestErrorsIndex, normalizedIndexNames, normalizerStateIndex, taskExecutionsIndex, workflowInstancesIndex } from '../src/normalized-indices.js';
import { readStatus } from '../src/normalizer-checkpoint.js';
import { OpenSearchNormalizer } from '../src/normalizer-job.js';
import { type BulkLine, CHANGED_AT_FIELD, documentId, planRecompute, sendBulk, writeRecompute } from '../src/normalizer-recompute.js';
import { RULES_ID, readRulesState } from '../src/normalizer-renormalize.js';
import { RULES_VERSION } from '../src/normalizer-rules-version.js';
import { parseRawEvent } from '../src/raw-event-parse.js';
import { rawIndices } from '../src/raw-event-source.js';
import { writeRetentionRule } from '../src/retention/retention-rule.js';
import { generatedEventLines } from './support/generated-events.js';
import { DAY_ONE, DAY_TWO, FIXTURE_LINES, leasedNormalizer, records } from './support/leased-normalizer.js';
import { openSearchState } from './support/opensearch-state.js';
import type { TestNamespace } from './support/test-node.js';

const T = '1.7785772435E9';
const known = (JSON.parse(FIXTURE_LINES[0]!) as { instanceId: string }).instanceId;
const LINES: readonly string[] = [
  `{"instanceId":"placeholder-only","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":"do/0/wait"}`,
  `{"instanceId":"placeholder-only","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":1.7785772436E9,"taskPosition":"do/0/wait"}`,
  ...FIXTURE_LINES,
  ...generatedEventLines(24, 7),
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":"yesterday","taskPosition":"do/0/validateOrder"}`,
];
// What the old installation had normalized, and what arrives after the upgrade (late events of its runs, new runs).
const EARLY = LINES.filter((_, i) => i % 3 !== 2);
const LATE = LINES.filter((_, i) => i % 3 === 2);
const instanceIdOf = (line: string): string => (JSON.parse(line) as { instanceId: string }).instanceId;

interface Documents {
  readonly instances: [string, unknown][];
  readonly executions: [string, unknown][];
  readonly errorReasons: string[];
}

const byId = (a: [string, unknown], b: [string, unknown]): number => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0]));

async function sources(client: Client, index: string, query: Record<string, unknown> = { match_all: {} }): Promise<[string, unknown][]> {
  await client.transport.request({ method: 'POST', path: `/${index}/_refresh` });
  // changed_at_ms says when a run was written (live updates), not what the rules computed.
  const response = await client.transport.request({ method: 'POST', path: `/${index}/_search`, body: { size: 10_000, query, _source: { excludes: [CHANGED_AT_FIELD] } } });
  return (response.body as { hits: { hits: { _id: string; _source: unknown }[] } }).hits.hits.map((h): [string, unknown] => [h._id, h._source]).sort(byId);
}

const SUPERSEDED = { term: { superseded: true } };

/** Every normalized document, whole (`_id` and `_source`; superseded markers apart), and the ingest errors' reasons. */
async function documents(client: Client, names: NormalizedIndexNames): Promise<Documents> {
  return {
    instances: await sources(client, names.workflowInstances),
    executions: await sources(client, names.taskExecutions, { bool: { must_not: [SUPERSEDED] } }),
    errorReasons: (await openSearchState(client, names)).ingestErrorReasons,
  };
}

async function count(client: Client, index: string, query: Record<string, unknown>): Promise<number> {
  await client.transport.request({ method: 'POST', path: `/${index}/_refresh` });
  const response = await client.transport.request({ method: 'POST', path: `/${index}/_count`, body: { query } });
  return (response.body as { count: number }).count;
}

/** Writes lines as Fluent Bit records and runs cycles until one finds nothing new. */
async function deliver(ns: TestNamespace, n: OpenSearchNormalizer, prefix: string, lines: readonly string[], recordTimeMs: number): Promise<void> {
  if (lines.length > 0) {
    const written = await writeEventLines(ns.client, records(lines, recordTimeMs), prefix);
    expect(written.items.filter((i) => i.status !== 201)).toEqual([]);
    await ns.refresh();
  }
  for (let guard = 0; guard < 10; guard++) if ((await n.cycle()).newRawEvents === 0) return;
  throw new Error('no quiescence in 10 cycles');
}

/**
 * Puts the normalized documents back in the previous release's shape: instance documents without task states and
 * an extra execution document of each run under an id the current rules do not give, both with the run's external
 * version (as the previous release wrote them); no rules version; no raw index left (retention deleted them).
 */
async function makeOld(ns: TestNamespace, names: NormalizedIndexNames, prefix: string): Promise<{ staleExecutions: string[] }> {
  await ns.refresh();
  const response = await ns.client.transport.request({ method: 'POST', path: `/${names.workflowInstances}/_search`, body: { size: 10_000, version: true, query: { match_all: {} } } });
  const hits = (response.body as { hits: { hits: { _id: string; _version: number; _source: Record<string, unknown> }[] } }).hits.hits;
  const lines: BulkLine[] = [];
  const staleExecutions: string[] = [];
  for (const hit of hits) {
    const { task_states: _states, task_states_complete: _complete, ...old } = hit._source;
    lines.push({ action: { index: { _index: names.workflowInstances, _id: hit._id, version: hit._version, version_type: 'external_gte' } }, document: old });
    const [first] = await sources(ns.client, names.taskExecutions, { term: { instance_id: hit._id } });
    if (first === undefined) continue;
    const oldId = `${hit._id}:old-form/${(first[1] as { task_position: string }).task_position}`;
    staleExecutions.push(documentId(oldId));
    lines.push({ action: { index: { _index: names.taskExecutions, _id: documentId(oldId), version: hit._version, version_type: 'external_gte' } }, document: { ...(first[1] as object), id: oldId } });
  }
  expect(await sendBulk(ns.client, lines, true)).toEqual([]);
  await ns.client.transport.request({ method: 'DELETE', path: `/${names.normalizerState}/_doc/${RULES_ID}` }, { ignore: [404] });
  await ns.client.transport.request({ method: 'DELETE', path: `/${rawIndices(prefix)}`, querystring: { allow_no_indices: 'true', ignore_unavailable: 'true' } });
  expect(await count(ns.client, names.workflowInstances, { term: { task_states_complete: true } })).toBe(0);
  return { staleExecutions };
}

/** An old installation holding `lines`, and the normalizer of the upgraded release (a new process) with the lease. */
async function oldInstallation(ns: TestNamespace, prefix: string, lines: readonly string[], options: { pageSize?: number; eventBudget?: number } = {}): Promise<{ n: OpenSearchNormalizer; staleExecutions: string[] }> {
  const previous = await leasedNormalizer(ns.client, prefix, { holder: 'upgraded' });
  await deliver(ns, previous, prefix, lines, DAY_ONE);
  const { staleExecutions } = await makeOld(ns, previous.names, prefix);
  const n = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'upgraded', renormalizePageSize: options.pageSize ?? 4, renormalizeSliceMs: 0, ...(options.eventBudget === undefined ? {} : { renormalizeEventBudget: options.eventBudget }) });
  expect(await n.acquire()).toBe(true);
  return { n, staleExecutions };
}

async function metric(n: OpenSearchNormalizer, name: string, labels: Record<string, string> = {}): Promise<number> {
  const found = (await n.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return Number(found?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0);
}

async function storedInstanceIds(client: Client, index: string): Promise<string[]> {
  await client.transport.request({ method: 'POST', path: `/${index}/_refresh` });
  const response = await client.transport.request({ method: 'POST', path: `/${index}/_search`, body: { size: 0, aggs: { ids: { terms: { field: 'instance_id', size: 10_000 } } } } });
  return (response.body as { aggregations: { ids: { buckets: { key: string }[] } } }).aggregations.ids.buckets.map((b) => b.key).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Every instance id of the event store with its document count, in instance-id order. */
async function storedEventCounts(client: Client, index: string): Promise<[string, number][]> {
  await client.transport.request({ method: 'POST', path: `/${index}/_refresh` });
  const response = await client.transport.request({ method: 'POST', path: `/${index}/_search`, body: { size: 0, aggs: { ids: { terms: { field: 'instance_id', size: 10_000 } } } } });
  return (response.body as { aggregations: { ids: { buckets: { key: string; doc_count: number }[] } } }).aggregations.ids.buckets
    .map((b): [string, number] => [b.key, b.doc_count])
    .sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
}

async function renormalizeToEnd(n: OpenSearchNormalizer): Promise<number> {
  for (let calls = 1; calls <= 1000; calls++) if ((await n.renormalize(0)).done) return calls;
  throw new Error('the re-normalization did not finish in 1000 slices');
}

describeOpenSearch('OpenSearch re-normalization after a rules change', () => {
  let ns: TestNamespace;
  /** A fresh normalization of every line: what an old installation must end up with. */
  let fresh: Documents;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    const prefix = `${ns.prefix}fresh-`;
    const n = await leasedNormalizer(ns.client, prefix);
    await deliver(ns, n, prefix, LINES, DAY_ONE);
    fresh = await documents(ns.client, n.names);
    expect(fresh.instances.length).toBeGreaterThan(20);
    expect(fresh.instances.every(([, d]) => (d as { task_states_complete: boolean }).task_states_complete)).toBe(true);
  }, 120_000);

  it('an old installation gets exactly the documents of a fresh normalization, from the event store alone, and the version is recorded', async () => {
    const prefix = `${ns.prefix}walk-`;
    const { n, staleExecutions } = await oldInstallation(ns, prefix, LINES);
    expect(staleExecutions.length).toBeGreaterThan(10);
    expect((await readRulesState(ns.client, n.names.normalizerState)).rulesVersion).toBe(1);
    const stored = await storedInstanceIds(ns.client, n.names.eventStore);

    const slices = await renormalizeToEnd(n);
    expect(slices).toBe(Math.floor(stored.length / 4) + 1); // pages of 4, one per slice; the last one shorter
    expect(await documents(ns.client, n.names)).toEqual(fresh);
    const rules = await readRulesState(ns.client, n.names.normalizerState);
    expect([rules.rulesVersion, rules.targetVersion, rules.afterInstanceId, rules.instancesDone]).toEqual([RULES_VERSION, null, null, stored.length]);
    expect(await count(ns.client, n.names.workflowInstances, { term: { task_states_complete: true } })).toBe(fresh.instances.length);
    expect(await metric(n, 'workflow_index_normalizer_renormalized_instances_total')).toBe(stored.length);
    // the executions whose id the rules no longer give are withdrawn: superseded markers, never served
    expect(await metric(n, 'workflow_index_normalizer_documents_deleted_total', { transform: 'task-execution-transform' })).toBe(staleExecutions.length);
    const markers = await sources(ns.client, n.names.taskExecutions, SUPERSEDED);
    expect(markers.map(([id]) => id)).toEqual([...staleExecutions].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    for (const [, marker] of markers) expect(marker).toEqual({ id: expect.stringContaining(':old-form/') as unknown, instance_id: expect.any(String) as unknown, placeholder: true, superseded: true });
    expect(await metric(n, 'workflow_index_normalizer_rules_version', { kind: 'documents' })).toBe(RULES_VERSION);
    expect(await metric(n, 'workflow_index_normalizer_rules_version', { kind: 'release' })).toBe(RULES_VERSION);
    // done: a further slice reads nothing but the state
    expect(await n.renormalize(0)).toEqual({ instances: 0, done: true, afterInstanceId: null });
    expect(await metric(n, 'workflow_index_normalizer_renormalized_instances_total')).toBe(stored.length);

    // a rollback: a newer release had recorded its version; this one lowers it to its own (it writes its own shape),
    // walking nothing, so that the next upgrade re-normalizes again
    await ns.client.transport.request({ method: 'PUT', path: `/${n.names.normalizerState}/_doc/${RULES_ID}`, querystring: { refresh: 'true' }, body: { kind: 'rules', rules_version: RULES_VERSION + 1 } });
    // (this same process, which had read the rules before: it reads them again at each slice, so it sees what
    // another release wrote while it did not hold the lease)
    expect(await n.renormalize(0)).toEqual({ instances: 0, done: true, afterInstanceId: null });
    expect((await readRulesState(ns.client, n.names.normalizerState)).rulesVersion).toBe(RULES_VERSION);

    // a rollback in the middle of a newer release's walk (toward RULES_VERSION + 1, past some instance): this release
    // drops that progress, since it rewrites runs the walk had passed, so the next upgrade starts from the first run
    await ns.client.transport.request({
      method: 'PUT', path: `/${n.names.normalizerState}/_doc/${RULES_ID}`, querystring: { refresh: 'true' },
      body: { kind: 'rules', rules_version: RULES_VERSION, target_version: RULES_VERSION + 1, after_instance_id: stored[5], instances_done: 6 },
    });
    expect(await n.renormalize(0)).toEqual({ instances: 0, done: true, afterInstanceId: null });
    const dropped = await readRulesState(ns.client, n.names.normalizerState);
    expect([dropped.rulesVersion, dropped.targetVersion, dropped.afterInstanceId, dropped.instancesDone]).toEqual([RULES_VERSION, null, null, 0]);
  }, 120_000);

  it('waits for the mappings: a walk that starts before opensearch-setup added this release\'s fields writes nothing, says what to run, and finishes once they are there', async () => {
    const prefix = `${ns.prefix}mapping-`;
    const names = normalizedIndexNames(prefix);
    // The previous release's normalized indices: this release's definitions without the fields it added for the
    // rules of version 2 (a normalizer whose user may not change mappings cannot add them itself).
    const without = (definition: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> => {
      const mappings = definition['mappings'] as { properties: Record<string, unknown> };
      return { ...definition, mappings: { ...mappings, properties: Object.fromEntries(Object.entries(mappings.properties).filter(([k]) => !fields.includes(k))) } };
    };
    const created: [string, Record<string, unknown>][] = [
      [names.workflowInstances, without(workflowInstancesIndex(), ['task_states', 'task_states_complete'])],
      [names.taskExecutions, without(taskExecutionsIndex(), ['superseded'])],
      [names.ingestErrors, ingestErrorsIndex()], [names.normalizerState, normalizerStateIndex()], [names.eventStore, eventStoreIndex()],
    ];
    for (const [name, body] of created) await ns.client.transport.request({ method: 'PUT', path: `/${name}`, body });
    // Its event store: every event of the fresh normalization (its raw indices long deleted by retention).
    await ns.client.transport.request({ method: 'POST', path: '/_reindex', querystring: { refresh: 'true' }, body: { source: { index: normalizedIndexNames(`${ns.prefix}fresh-`).eventStore }, dest: { index: names.eventStore } } });
    const n = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'upgraded', renormalizePageSize: 4, renormalizeSliceMs: 0 });
    expect(await n.acquire()).toBe(true);

    // Without the check, every document of the walk would be refused by the strict mappings (recorded as ingest
    // errors) and every run counted as done, the version recorded: nothing would ever bring the runs up to date.
    for (let slice = 0; slice < 2; slice++) {
      await expect(n.renormalize(0)).rejects.toThrow(/the mappings lack .*task_states.*superseded: run `init-job opensearch-setup`/);
    }
    expect(await count(ns.client, names.workflowInstances, { match_all: {} })).toBe(0);
    expect(await count(ns.client, names.taskExecutions, { match_all: {} })).toBe(0);
    expect(await count(ns.client, names.ingestErrors, { match_all: {} })).toBe(0);
    const waiting = await readRulesState(ns.client, names.normalizerState);
    expect([waiting.rulesVersion, waiting.targetVersion, waiting.afterInstanceId, waiting.instancesDone]).toEqual([1, RULES_VERSION, null, 0]);

    await applyNormalizedIndices(ns.client, prefix); // what init-job opensearch-setup does to existing indices
    await renormalizeToEnd(n);
    const walked = await documents(ns.client, names);
    expect([walked.instances, walked.executions]).toEqual([fresh.instances, fresh.executions]);
    expect((await readRulesState(ns.client, names.normalizerState)).rulesVersion).toBe(RULES_VERSION);
  }, 120_000);

  it('a restart in the middle resumes after the last page stored, with the same result; the replaced process, reading the rules again, writes nothing over them', async () => {
    const prefix = `${ns.prefix}resume-`;
    const { n: first } = await oldInstallation(ns, prefix, LINES);
    const stored = await storedInstanceIds(ns.client, first.names.eventStore);
    expect(await first.renormalize(0)).toEqual({ instances: 4, done: false, afterInstanceId: stored[3] });
    expect(await first.renormalize(0)).toEqual({ instances: 4, done: false, afterInstanceId: stored[7] });
    const progress = await readRulesState(ns.client, first.names.normalizerState);
    expect([progress.rulesVersion, progress.targetVersion, progress.afterInstanceId, progress.instancesDone]).toEqual([1, RULES_VERSION, stored[7], 8]);

    // a new process of the same deployment (same holder name) takes over
    const second = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'upgraded', renormalizePageSize: 4 });
    expect(await second.acquire()).toBe(true);
    expect((await second.renormalize(60_000)).done).toBe(true);
    expect(await metric(second, 'workflow_index_normalizer_renormalized_instances_total')).toBe(stored.length - 8);
    expect(await documents(ns.client, second.names)).toEqual(fresh);
    expect((await readRulesState(ns.client, second.names.normalizerState)).instancesDone).toBe(stored.length);
    // the first process reads the rules again at its next slice: it sees the walk finished and writes nothing over it
    const finished = await readRulesState(ns.client, second.names.normalizerState);
    expect(await first.renormalize(0)).toEqual({ instances: 0, done: true, afterInstanceId: null });
    expect(await readRulesState(ns.client, second.names.normalizerState)).toEqual(finished);
  }, 120_000);

  it('pages are cut by stored events as well as by instances: a tiny event budget still gives the fresh documents, with the progress stored after each page', async () => {
    const prefix = `${ns.prefix}budget-`;
    const budget = 6;
    const { n } = await oldInstallation(ns, prefix, LINES, { pageSize: 50, eventBudget: budget });
    const counts = await storedEventCounts(ns.client, n.names.eventStore);
    // The pages expected: instances in order while their events add up to the budget, a longer run alone.
    const pages: string[][] = [];
    let page: string[] = [];
    let events = 0;
    for (const [id, c] of counts) {
      if (page.length === 50 || (page.length > 0 && events + c > budget)) {
        pages.push(page);
        page = [];
        events = 0;
      }
      page.push(id);
      events += c;
    }
    pages.push(page);
    expect(counts.length).toBeLessThan(50); // one listing: every cut below is the budget's
    expect(counts.filter(([, c]) => c > budget).length).toBeGreaterThan(0); // runs longer than the budget: pages of their own
    expect(pages.length).toBeGreaterThan(8);
    let done = 0;
    for (const [i, p] of pages.entries()) {
      const last = i === pages.length - 1;
      done += p.length;
      expect(await n.renormalize(0)).toEqual({ instances: p.length, done: last, afterInstanceId: last ? null : p.at(-1) });
      const rules = await readRulesState(ns.client, n.names.normalizerState);
      expect([rules.afterInstanceId, rules.instancesDone, rules.rulesVersion]).toEqual([last ? null : p.at(-1), done, last ? RULES_VERSION : 1]);
    }
    expect(done).toBe(counts.length);
    expect(await documents(ns.client, n.names)).toEqual(fresh);
    expect(await metric(n, 'workflow_index_normalizer_renormalized_instances_total')).toBe(counts.length);
  }, 120_000);

  it('a page computed before a new event of its run is written after it: the newer documents stay', async () => {
    const prefix = `${ns.prefix}race-`;
    const victim = 'gen-005';
    const lastOfVictim = LINES.filter((l) => instanceIdOf(l) === victim).at(-1)!;
    const { n } = await oldInstallation(ns, prefix, LINES.filter((l) => l !== lastOfVictim));
    // the re-normalization reads the run's stored events and computes its bulk…
    const held = await planRecompute(ns.client, n.names, [victim], new Map());
    expect(held.instances).toBe(1);
    // …meanwhile a cycle normalizes the run's new event…
    await deliver(ns, n, prefix, [lastOfVictim], DAY_TWO);
    const newer = await documents(ns.client, n.names);
    // …then the held bulk arrives: an older version, refused
    await writeRecompute(ns.client, n.names, held, { refresh: true });
    expect(await documents(ns.client, n.names)).toEqual(newer);
    await renormalizeToEnd(n);
    expect(await documents(ns.client, n.names)).toEqual(fresh);
  }, 120_000);

  it('any interleaving of new deliveries, re-normalization pages and restarts gives the fresh documents', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('deliver', 'page', 'restart'), { maxLength: 14 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 9 }),
        async (steps, flushes, pageSize) => {
          const prefix = `${ns.prefix}p${run++}-`;
          let { n } = await oldInstallation(ns, prefix, EARLY, { pageSize });
          const size = Math.ceil(LATE.length / flushes);
          const pending = Array.from({ length: flushes }, (_, i) => LATE.slice(i * size, (i + 1) * size));
          let recordTime = DAY_TWO;
          for (const step of steps) {
            if (step === 'deliver' && pending.length > 0) await deliver(ns, n, prefix, pending.shift()!, (recordTime += 1000));
            if (step === 'page') await n.renormalize(0);
            if (step === 'restart') {
              n = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'upgraded', renormalizePageSize: pageSize });
              expect(await n.acquire()).toBe(true);
            }
          }
          for (const flush of pending) await deliver(ns, n, prefix, flush, (recordTime += 1000));
          await renormalizeToEnd(n);
          expect(await documents(ns.client, n.names)).toEqual(fresh);
          expect((await readRulesState(ns.client, n.names.normalizerState)).rulesVersion).toBe(RULES_VERSION);
        },
      ),
      { numRuns: 6, seed: 20261124 },
    );
  }, 600_000);

  it('the running job: re-normalizes between cycles while new events arrive, reports progress, records the version; a fresh installation records it at once', async () => {
    const prefix = `${ns.prefix}job-`;
    const { n: previous } = await oldInstallation(ns, prefix, EARLY);
    await previous.run(AbortSignal.abort()); // gives the lease up
    const n = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, intervalMs: 20, renormalizePageSize: 2, renormalizeSliceMs: 0, retentionIntervalMs: 0 });
    const controller = new AbortController();
    const running = n.run(controller.signal);
    try {
      const statuses: string[] = [];
      for (let i = 0; i < LATE.length; i += 10) {
        await writeEventLines(ns.client, records(LATE.slice(i, i + 10), DAY_TWO + i), prefix);
        const status = await readStatus(ns.client, n.names.normalizerState);
        if (status?.renormalization) statuses.push(status.renormalization.state);
      }
      await vi.waitFor(async () => {
        const status = await readStatus(ns.client, n.names.normalizerState);
        expect(status?.renormalization?.state).toBe('done');
        expect(status?.raw_events_processed).toBe(LATE.length);
      }, { timeout: 120_000, interval: 100 });
      expect(statuses.length === 0 || statuses.every((s) => s === 'running' || s === 'done')).toBe(true);
    } finally {
      controller.abort();
      await running;
    }
    const status = (await readStatus(ns.client, n.names.normalizerState))!;
    expect(status.renormalization).toMatchObject({ rules_version: RULES_VERSION, current_version: RULES_VERSION, state: 'done', after_instance_id: null, last_error: null });
    expect(status.renormalization!.instances_done).toBeGreaterThan(0);
    expect(await metric(n, 'workflow_index_normalizer_renormalized_instances_total')).toBe(status.renormalization!.instances_done);
    await deliver(ns, n, prefix, [], DAY_TWO); // quiescence
    expect(await documents(ns.client, n.names)).toEqual(fresh);

    const empty = `${ns.prefix}empty-`;
    const idle = await leasedNormalizer(ns.client, empty, { intervalMs: 20, retentionIntervalMs: 0 });
    const stop = new AbortController();
    const idling = idle.run(stop.signal);
    try {
      await vi.waitFor(async () => expect((await readStatus(ns.client, idle.names.normalizerState))?.renormalization?.state).toBe('done'), { timeout: 60_000, interval: 50 });
    } finally {
      stop.abort();
      await idling;
    }
    const rules = await readRulesState(ns.client, idle.names.normalizerState);
    expect([rules.rulesVersion, rules.instancesDone]).toEqual([RULES_VERSION, 0]);
    expect(await metric(idle, 'workflow_index_normalizer_renormalized_instances_total')).toBe(0);
  }, 300_000);

  it('an event an earlier release stored and the current rules refuse is left out and recorded, as a fresh normalization records it', async () => {
    const prefix = `${ns.prefix}refused-`;
    const { n } = await oldInstallation(ns, prefix, LINES);
    const [[, stored]] = await sources(ns.client, n.names.eventStore, { bool: { filter: [{ term: { instance_id: 'gen-003' } }, { term: { kind: 'task' } }] } }) as [[string, { source: string }]];
    const source = parseLosslessJson(stored.source) as JsonObject;
    source.set('eventType', 'io.serverlessworkflow.task.exploded.v1');
    const parsed = parseRawEvent(source);
    expect(parsed.ok).toBe(false);
    const reason = parsed.ok ? '' : parsed.reason;
    const document = { ...stored, id: 't-accepted-by-an-earlier-release', raw_index: 'old-raw-index', raw_id: 'old-raw-id', source: stringifyLossless(source) };
    expect(await sendBulk(ns.client, [{ action: { index: { _index: n.names.eventStore, _id: document.id } }, document }], true)).toEqual([]);

    await renormalizeToEnd(n);
    const after = await documents(ns.client, n.names);
    expect({ ...after, errorReasons: [] }).toEqual({ ...fresh, errorReasons: [] });
    expect(after.errorReasons).toEqual([...fresh.errorReasons, reason].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    const record = await ns.client.transport.request({ method: 'GET', path: `/${n.names.ingestErrors}/_doc/${encodeURIComponent('old-raw-index/old-raw-id')}` });
    expect((record.body as { _source: unknown })._source).toMatchObject({ raw_index: 'old-raw-index', raw_id: 'old-raw-id', instance_id: 'gen-003', reason });
  }, 120_000);

  it('re-normalizes a run whose newest stored event the current rules refuse (its documents carry that event\'s version)', async () => {
    const prefix = `${ns.prefix}refused-newest-`;
    const { n } = await oldInstallation(ns, prefix, LINES);
    const [[, stored]] = await sources(ns.client, n.names.eventStore, { bool: { filter: [{ term: { instance_id: 'gen-003' } }, { term: { kind: 'task' } }] } }) as [[string, { source: string; ingest_time_ms: number }]];
    const newest = Math.max(...(await sources(ns.client, n.names.eventStore, { term: { instance_id: 'gen-003' } })).map(([, d]) => (d as { ingest_time_ms: number }).ingest_time_ms));
    const source = parseLosslessJson(stored.source) as JsonObject;
    source.set('eventType', 'io.serverlessworkflow.task.exploded.v1');
    // What an earlier release accepted last: the run's documents were written with its ingest time as their version.
    const document = { ...stored, id: 't-accepted-last-by-an-earlier-release', raw_index: 'old-raw-index', raw_id: 'old-raw-id-2', source: stringifyLossless(source), ingest_time_ms: newest + 1 };
    const rewrite: BulkLine[] = [{ action: { index: { _index: n.names.eventStore, _id: document.id } }, document }];
    for (const index of [n.names.workflowInstances, n.names.taskExecutions]) {
      for (const [id, doc] of await sources(ns.client, index, index === n.names.workflowInstances ? { term: { id: 'gen-003' } } : { term: { instance_id: 'gen-003' } })) {
        rewrite.push({ action: { index: { _index: index, _id: id, version: newest + 1, version_type: 'external_gte' } }, document: doc });
      }
    }
    expect(await sendBulk(ns.client, rewrite, true)).toEqual([]);
    expect(await count(ns.client, n.names.workflowInstances, { bool: { filter: [{ term: { id: 'gen-003' } }, { exists: { field: 'task_states' } }] } })).toBe(0);

    await renormalizeToEnd(n);
    const after = await documents(ns.client, n.names);
    expect(after.instances).toEqual(fresh.instances);
    expect(after.executions).toEqual(fresh.executions);
  }, 120_000);

  it('never brings back a run instance retention deleted, even with stored events left behind', async () => {
    const prefix = `${ns.prefix}pruned-`;
    const { n } = await oldInstallation(ns, prefix, LINES);
    const before = await documents(ns.client, n.names);
    const finished = before.instances.filter(([, d]) => ['COMPLETED', 'FAULTED', 'CANCELLED'].includes((d as { status: string }).status)).map(([id]) => id);
    expect(finished.length).toBeGreaterThan(3);
    // the stored events of one finished run, to put back as if retention's delete-by-query had missed them
    const leftBehind = await sources(ns.client, n.names.eventStore, { term: { instance_id: finished[0]! } });
    expect(leftBehind.length).toBeGreaterThan(0);
    await writeRetentionRule(ns.client, n.names.normalizerState, { raw_events_retention_days: 7, instance_retention_days: 1 });
    expect((await n.retention()).instances!.instances).toBe(finished.length);
    expect(await sendBulk(ns.client, leftBehind.map(([id, doc]) => ({ action: { index: { _index: n.names.eventStore, _id: id } }, document: doc })), true)).toEqual([]);

    await renormalizeToEnd(n);
    const after = await documents(ns.client, n.names);
    const kept = (list: [string, unknown][]): [string, unknown][] => list.filter(([, d]) => !finished.includes((d as { id: string; instance_id?: string }).instance_id ?? (d as { id: string }).id));
    expect(after.instances.map(([id]) => id)).toEqual(kept(fresh.instances).map(([id]) => id));
    expect(after.instances).toEqual(kept(fresh.instances));
    expect(after.executions).toEqual(kept(fresh.executions));
  }, 120_000);
});
