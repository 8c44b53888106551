// The re-normalization after a rules change when a page fails (normalizer-renormalize-walk.ts pageFailed, normalizer-renormalize-narrowing.ts), against
// the real node. The fault is injected into our own function (recomputeStoredInstances, normalizer-recompute.ts) for
// the pages holding one instance id: either a failure of that run (an error of our code, as "recording refused
// documents failed" is) or a real failure of the cluster (the page's requests go through a proxy that refuses or
// answers 503, support/outage-proxy.ts). A failing page is retried in halves down to the single instance; the run is
// skipped and recorded only after failing alone three times in a row for a reason of its own, never for the cluster
// being away; a failing slice never fails a cycle, and the status and the failures counter show it.
import { Client, errors } from '@opensearch-project/opensearch';
import { afterAll, describe, expect, vi } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import type { NormalizedIndexNames } from '../src/normalized-indices.js';
import { readStatus } from '../src/normalizer-checkpoint.js';
import { OpenSearchNormalizer } from '../src/normalizer-job.js';
import type * as Recompute from '../src/normalizer-recompute.js';
import { type BulkLine, sendBulk } from '../src/normalizer-recompute.js';
import { RULES_ID, pageWithinBudget, readRulesState, renormalizationFailureKind } from '../src/normalizer-renormalize.js';
import { RULES_VERSION } from '../src/normalizer-rules-version.js';
import { generatedEventLines } from './support/generated-events.js';
import { DAY_ONE, DAY_TWO, leasedNormalizer, records } from './support/leased-normalizer.js';
import { type OutageProxy, startOutageProxy } from './support/outage-proxy.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

const fault = vi.hoisted(() => ({
  /** The run whose pages fail; '*': every page. */
  instanceId: null as string | null,
  /** 'run': an error of the run's own computation; 'cluster': the page's requests go to `cluster` (an outage). */
  mode: 'run' as 'run' | 'cluster',
  cluster: null as unknown,
  /** Every page recomputeStoredInstances was asked for, in order. */
  pages: [] as string[][],
}));
vi.mock('../src/normalizer-recompute.js', async (importOriginal) => {
  const original = await importOriginal<typeof Recompute>();
  return {
    ...original,
    recomputeStoredInstances: async (client: Client, ...rest: Parameters<typeof original.recomputeStoredInstances> extends [unknown, ...infer R] ? R : never) => {
      const ids = rest[1];
      fault.pages.push([...ids]);
      if (fault.instanceId !== null && (fault.instanceId === '*' || ids.includes(fault.instanceId))) {
        if (fault.mode === 'run') throw new Error(`injected: recording refused documents failed for ${fault.instanceId === '*' ? ids[0]! : fault.instanceId}: mapper_parsing_exception`);
        return original.recomputeStoredInstances(fault.cluster as Client, ...rest);
      }
      return original.recomputeStoredInstances(client, ...rest);
    },
  };
});

const LINES = generatedEventLines(12, 31);
const POISONED = 'gen-005';

async function storedInstanceIds(ns: TestNamespace, names: NormalizedIndexNames): Promise<string[]> {
  await ns.refresh();
  const response = await ns.client.transport.request({ method: 'POST', path: `/${names.eventStore}/_search`, body: { size: 0, aggs: { ids: { terms: { field: 'instance_id', size: 10_000 } } } } });
  return (response.body as { aggregations: { ids: { buckets: { key: string }[] } } }).aggregations.ids.buckets.map((b) => b.key).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Instance ids whose document has task states (written by this release's rules), sorted. */
async function withTaskStates(ns: TestNamespace, names: NormalizedIndexNames): Promise<string[]> {
  await ns.refresh();
  const response = await ns.client.transport.request({ method: 'POST', path: `/${names.workflowInstances}/_search`, body: { size: 10_000, _source: false, query: { exists: { field: 'task_states_complete' } } } });
  return (response.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

async function metric(n: OpenSearchNormalizer, name: string): Promise<number> {
  const found = (await n.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return Number(found?.values[0]?.value ?? 0);
}

async function cycleUntilQuiet(n: OpenSearchNormalizer): Promise<void> {
  for (let guard = 0; guard < 10; guard++) if ((await n.cycle()).newRawEvents === 0) return;
  throw new Error('no quiescence in 10 cycles');
}

/**
 * An installation normalized by this code whose instance documents were then put back without task states (as the
 * previous rules wrote them, same external version) and without a recorded rules version; the normalizer of the
 * upgraded release holds the lease.
 */
async function oldInstallation(ns: TestNamespace, prefix: string, options: { pageSize: number; holder?: string }): Promise<OpenSearchNormalizer> {
  const previous = await leasedNormalizer(ns.client, prefix, { holder: options.holder ?? 'upgraded' });
  expect((await writeEventLines(ns.client, records(LINES, DAY_ONE), prefix)).errors).toBe(false);
  await ns.refresh();
  await cycleUntilQuiet(previous);
  await ns.refresh();
  const response = await ns.client.transport.request({ method: 'POST', path: `/${previous.names.workflowInstances}/_search`, body: { size: 10_000, version: true, query: { match_all: {} } } });
  const hits = (response.body as { hits: { hits: { _id: string; _version: number; _source: Record<string, unknown> }[] } }).hits.hits;
  const lines: BulkLine[] = hits.map((hit) => {
    const { task_states: _states, task_states_complete: _complete, ...old } = hit._source;
    return { action: { index: { _index: previous.names.workflowInstances, _id: hit._id, version: hit._version, version_type: 'external_gte' } }, document: old };
  });
  expect(await sendBulk(ns.client, lines, true)).toEqual([]);
  await ns.client.transport.request({ method: 'DELETE', path: `/${previous.names.normalizerState}/_doc/${RULES_ID}`, querystring: { refresh: 'true' } }, { ignore: [404] });
  expect(await withTaskStates(ns, previous.names)).toEqual([]);
  const n = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: options.holder ?? 'upgraded', renormalizePageSize: options.pageSize, renormalizeSliceMs: 0 });
  expect(await n.acquire()).toBe(true);
  return n;
}

/** Slices (renormalize(0): one page each) until done; the message of each failed slice, in order. */
async function slicesToEnd(n: OpenSearchNormalizer): Promise<string[]> {
  const failures: string[] = [];
  for (let slice = 0; slice < 200; slice++) {
    try {
      if ((await n.renormalize(0)).done) return failures;
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  throw new Error(`the re-normalization did not finish in 200 slices: ${failures.slice(-3).join(' | ')}`);
}

describeOpenSearch('a re-normalization page that fails (real OpenSearch node)', () => {
  let ns: TestNamespace;
  let proxy: OutageProxy;
  let proxied: Client;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    const node = new URL(OPENSEARCH_URL);
    proxy = await startOutageProxy({ host: node.hostname, port: Number(node.port || '9200') });
    proxied = new Client({ node: `http://127.0.0.1:${proxy.port}`, maxRetries: 0, requestTimeout: 10_000 });
    fault.cluster = proxied;
  });
  afterAll(async () => {
    fault.instanceId = null;
    await proxied?.close();
    await proxy?.close();
  });

  it('halves the failing page down to the run, skips and records the run after three failures of its own, re-normalizes every other run and records the version', async () => {
    const prefix = `${ns.prefix}skip-`;
    const n = await oldInstallation(ns, prefix, { pageSize: 4 });
    const stored = await storedInstanceIds(ns, n.names);
    expect(stored).toEqual(Array.from({ length: 12 }, (_, i) => `gen-${String(i).padStart(3, '0')}`));
    fault.instanceId = POISONED;
    fault.mode = 'run';
    fault.pages.length = 0;
    let failures: string[];
    try {
      failures = await slicesToEnd(n);
    } finally {
      fault.instanceId = null;
    }
    const [g0, g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11] = stored as [string, string, string, string, string, string, string, string, string, string, string, string];
    expect(fault.pages).toEqual([
      [g0, g1, g2, g3], // a page of 4
      [g4, g5, g6, g7], // fails …
      [g4, g5], // … retried as 2, fails …
      [g4], // … as 1: g4 goes through
      [g5], [g5], [g5], // g5 alone fails three times in a row: skipped
      [g6, g7, g8, g9], // whole pages again
      [g10, g11],
    ]);
    const injected = `injected: recording refused documents failed for ${POISONED}: mapper_parsing_exception`;
    expect(failures).toEqual([
      `re-normalizing 4 instances after ${g3} failed; retried in pages of 2: ${injected}`,
      `re-normalizing 2 instances after ${g3} failed; retried in pages of 1: ${injected}`,
      `re-normalizing instance ${g5} failed (1 of 3 failures in a row before it is skipped): ${injected}`,
      `re-normalizing instance ${g5} failed (2 of 3 failures in a row before it is skipped): ${injected}`,
      `re-normalization skipped instance ${g5} after 3 failures in a row (recorded in the ingest errors as normalizer/${g5}): ${injected}`,
    ]);

    const rules = await readRulesState(ns.client, n.names.normalizerState);
    expect([rules.rulesVersion, rules.targetVersion, rules.afterInstanceId, rules.instancesDone, rules.instancesSkipped]).toEqual([RULES_VERSION, null, null, 12, 1]);
    expect(await withTaskStates(ns, n.names)).toEqual(stored.filter((id) => id !== POISONED));
    const record = await ns.client.transport.request({ method: 'GET', path: `/${n.names.ingestErrors}/_doc/${encodeURIComponent(`normalizer/${POISONED}`)}` });
    expect((record.body as { _source: unknown })._source).toMatchObject({
      instance_id: POISONED,
      reason: `re-normalization failed for instance ${POISONED} (3 times in a row; skipped, its documents stay as an earlier release wrote them): ${injected}`,
    });
    expect(await metric(n, 'workflow_index_normalizer_renormalization_skipped_instances_total')).toBe(1);
    expect(await metric(n, 'workflow_index_normalizer_renormalized_instances_total')).toBe(11);
    expect(await metric(n, 'workflow_index_normalizer_rules_version')).toBe(RULES_VERSION);
  }, 120_000);

  it('when every run fails for a reason of its own (a general failure in disguise), it stops skipping after five in a row', async () => {
    const prefix = `${ns.prefix}every-`;
    const n = await oldInstallation(ns, prefix, { pageSize: 4 });
    const stored = await storedInstanceIds(ns, n.names);
    fault.instanceId = '*';
    fault.mode = 'run';
    const failures: string[] = [];
    try {
      for (let slice = 0; slice < 40; slice++) {
        try {
          await n.renormalize(0);
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    } finally {
      fault.instanceId = null;
    }
    expect(failures).toHaveLength(40);
    // five runs skipped (five slices each: 4, 2, then 1 three times), then only refusals to skip
    expect(failures.filter((f) => f.startsWith('re-normalization skipped instance'))).toHaveLength(5);
    const refusal = `re-normalizing instance ${stored[5]!} failed, not skipped: 5 instances in a row were skipped with no page succeeding between`;
    expect(failures[28]).toMatch(new RegExp(`^re-normalizing instance ${stored[5]!} failed \\(2 of 3 failures in a row before it is skipped\\)`));
    expect(failures.slice(29).every((f) => f.startsWith(refusal))).toBe(true);
    const stuck = await readRulesState(ns.client, n.names.normalizerState);
    expect([stuck.rulesVersion, stuck.afterInstanceId, stuck.instancesDone, stuck.instancesSkipped]).toEqual([1, stored[4], 5, 5]);
    expect(await metric(n, 'workflow_index_normalizer_renormalization_skipped_instances_total')).toBe(5);
    expect(stuck.skipsInARow).toBe(5);

    // a restarted process does not skip again: the count is kept in the rules document, not in the process
    const restarted = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'upgraded', renormalizePageSize: 4, renormalizeSliceMs: 0 });
    expect(await restarted.acquire()).toBe(true);
    fault.instanceId = '*';
    const afterRestart: string[] = [];
    try {
      for (let slice = 0; slice < 6; slice++) {
        try {
          await restarted.renormalize(0);
        } catch (error) {
          afterRestart.push((error as Error).message);
        }
      }
    } finally {
      fault.instanceId = null;
    }
    // pages of 4, 2, then the run alone: after its third failure, a refusal to skip each time
    expect(afterRestart).toHaveLength(6);
    expect(afterRestart.filter((f) => f.startsWith('re-normalization skipped instance'))).toEqual([]);
    expect(afterRestart.slice(4).every((f) => f.startsWith(refusal))).toBe(true);
    expect((await readRulesState(ns.client, n.names.normalizerState)).instancesSkipped).toBe(5);

    // the failure is mended: the walk ends from there; the five skipped runs keep their documents
    expect(await slicesToEnd(n)).toEqual([]);
    const rules = await readRulesState(ns.client, n.names.normalizerState);
    expect([rules.rulesVersion, rules.instancesDone, rules.instancesSkipped]).toEqual([RULES_VERSION, 12, 5]);
    expect(await withTaskStates(ns, n.names)).toEqual(stored.slice(5));
  }, 120_000);

  it('a run whose pages fail because the cluster is away (connections refused, 503) is never skipped, however often; once it answers, the run is re-normalized', async () => {
    const prefix = `${ns.prefix}outage-`;
    const n = await oldInstallation(ns, prefix, { pageSize: 4 });
    const stored = await storedInstanceIds(ns, n.names);
    fault.instanceId = POISONED;
    fault.mode = 'cluster';
    fault.pages.length = 0;
    const failures: string[] = [];
    try {
      for (const state of ['refuse', 'unavailable'] as const) {
        await proxy.set(state);
        for (let slice = 0; slice < 8; slice++) {
          try {
            expect((await n.renormalize(0)).done).toBe(false);
          } catch (error) {
            failures.push((error as Error).message);
          }
        }
      }
    } finally {
      await proxy.set('forward');
    }
    const g3 = stored[3]!;
    const g4 = stored[4]!;
    // narrowed down to the run, then retried alone at every slice: never skipped
    expect(fault.pages.slice(0, 4)).toEqual([stored.slice(0, 4), stored.slice(4, 8), stored.slice(4, 6), [g4]]);
    // 16 slices: the first page, the two narrowed failures, g4 alone, then the run alone at each of the 12 others
    expect(fault.pages.slice(4)).toEqual(Array.from({ length: 12 }, () => [POISONED]));
    expect(failures).toHaveLength(14);
    expect(failures.slice(0, 2).map((f) => f.replace(/: .*/s, ''))).toEqual([`re-normalizing 4 instances after ${g3} failed; retried in pages of 2`, `re-normalizing 2 instances after ${g3} failed; retried in pages of 1`]);
    for (const f of failures.slice(2)) expect(f).toMatch(new RegExp(`^re-normalizing instance ${POISONED} failed \\(the cluster is away or overloaded; retried, never skipped\\): `));
    expect(failures.filter((f) => /answered 503|HTTP 503/.test(f))).toHaveLength(8);
    expect(failures.filter((f) => /ECONNREFUSED|ECONNRESET|socket hang up|connect/i.test(f) && !/503/.test(f))).toHaveLength(6); // connections refused
    const during = await readRulesState(ns.client, n.names.normalizerState);
    expect([during.afterInstanceId, during.instancesSkipped]).toEqual([g4, 0]);

    // the cluster answers again through the proxy: the run goes through (still narrowed to one instance at first)
    expect(await slicesToEnd(n)).toEqual([]);
    fault.instanceId = null;
    const rules = await readRulesState(ns.client, n.names.normalizerState);
    expect([rules.rulesVersion, rules.instancesDone, rules.instancesSkipped]).toEqual([RULES_VERSION, 12, 0]);
    expect(await withTaskStates(ns, n.names)).toEqual(stored);
    expect(await metric(n, 'workflow_index_normalizer_renormalization_skipped_instances_total')).toBe(0);
    const record = await ns.client.transport.request({ method: 'GET', path: `/${n.names.ingestErrors}/_doc/${encodeURIComponent(`normalizer/${POISONED}`)}` }, { ignore: [404] });
    expect(record.statusCode).toBe(404);
  }, 120_000);

  it('the running job: a failing page never fails a cycle (new events are normalized), the failures counter and the status show it; afterwards the walk ends', async () => {
    const prefix = `${ns.prefix}job-`;
    const previous = await oldInstallation(ns, prefix, { pageSize: 2, holder: 'old' });
    await previous.run(AbortSignal.abort()); // gives the lease up
    const stored = await storedInstanceIds(ns, previous.names);
    fault.instanceId = POISONED;
    fault.mode = 'cluster';
    await proxy.set('unavailable'); // the run's pages keep failing, for a reason never skipped
    const n = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, intervalMs: 20, renormalizePageSize: 2, renormalizeSliceMs: 0, retentionIntervalMs: 0 });
    const controller = new AbortController();
    const running = n.run(controller.signal);
    const late = [
      JSON.stringify({ instanceId: 'late-run', eventType: 'io.serverlessworkflow.workflow.started.v1', timestamp: 1_778_577_300, startTime: 1_778_577_300, workflowName: 'late', status: 'RUNNING' }),
      JSON.stringify({ instanceId: 'late-run', eventType: 'io.serverlessworkflow.workflow.completed.v1', timestamp: 1_778_577_301, endTime: 1_778_577_301, status: 'COMPLETED' }),
    ];
    try {
      await vi.waitFor(async () => expect((await readStatus(ns.client, n.names.normalizerState))?.renormalization?.last_error).toMatch(new RegExp(`^re-normalizing instance ${POISONED} failed \\(the cluster is away or overloaded; retried, never skipped\\): .*answered 503`)), { timeout: 60_000, interval: 50 });
      expect((await writeEventLines(ns.client, records(late, DAY_TWO), prefix)).errors).toBe(false);
      await vi.waitFor(async () => {
        const status = await readStatus(ns.client, n.names.normalizerState);
        expect(status?.raw_events_processed).toBe(late.length);
        expect(status?.renormalization?.state).toBe('running');
        expect(status?.renormalization?.last_error).toMatch(/answered 503/);
      }, { timeout: 60_000, interval: 50 });
      const status = (await readStatus(ns.client, n.names.normalizerState))!;
      expect([status.failed_cycles, status.jobs['workflow-instance-transform']?.last_error]).toEqual([0, null]);
      expect(status.renormalization).toMatchObject({ rules_version: 1, current_version: RULES_VERSION, after_instance_id: stored[4], instances_skipped: 0 });
      expect(await metric(n, 'workflow_index_normalizer_renormalization_failures_total')).toBeGreaterThanOrEqual(2);
      expect(await metric(n, 'workflow_index_normalizer_failed_cycles_total')).toBe(0);
      expect(n.healthy).toBe(true);
      await ns.refresh();
      const lateRun = await ns.client.transport.request({ method: 'GET', path: `/${n.names.workflowInstances}/_doc/late-run` });
      expect((lateRun.body as { _source: { status: string } })._source.status).toBe('COMPLETED');

      await proxy.set('forward'); // the cluster answers: the walk ends, nothing skipped
      await vi.waitFor(async () => expect((await readStatus(ns.client, n.names.normalizerState))?.renormalization?.state).toBe('done'), { timeout: 60_000, interval: 50 });
    } finally {
      controller.abort();
      await running;
      fault.instanceId = null;
      await proxy.set('forward');
    }
    const status = (await readStatus(ns.client, n.names.normalizerState))!;
    expect(status.renormalization).toMatchObject({ rules_version: RULES_VERSION, state: 'done', instances_skipped: 0, last_error: null });
    expect(await withTaskStates(ns, n.names)).toEqual([...stored, 'late-run'].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  }, 180_000);
});

describe('which failures may lead to a skip, and the event budget (no node)', () => {
  const response = (statusCode: number, type: string): errors.ResponseError =>
    new errors.ResponseError({ body: { error: { type, reason: type }, status: statusCode }, statusCode, headers: {}, warnings: null, meta: {} as never });
  it('classifies the cluster being away as transient, permissions and missing indices as general, the rest as of the run', () => {
    expect(renormalizationFailureKind(new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200'))).toBe('transient');
    expect(renormalizationFailureKind(new errors.TimeoutError('Request timed out', {} as never))).toBe('transient');
    expect(renormalizationFailureKind(new errors.NoLivingConnectionsError('There are no living connections', {} as never))).toBe('transient');
    expect(renormalizationFailureKind(response(503, 'cluster_block_exception'))).toBe('transient');
    expect(renormalizationFailureKind(response(429, 'circuit_breaking_exception'))).toBe('transient');
    expect(renormalizationFailureKind(response(502, 'bad gateway'))).toBe('transient');
    expect(renormalizationFailureKind(new Error('bulk write failed for 3 documents: {"status":429}'))).toBe('transient');
    expect(renormalizationFailureKind(new Error('OpenSearch POST /x/_search answered 503: {}'))).toBe('transient');
    expect(renormalizationFailureKind(new Error('unexpected OpenSearch response: <html>502 Bad Gateway</html>'))).toBe('transient');
    expect(renormalizationFailureKind(response(403, 'security_exception'))).toBe('general');
    expect(renormalizationFailureKind(response(401, 'security_exception'))).toBe('general');
    expect(renormalizationFailureKind(response(404, 'index_not_found_exception'))).toBe('general');
    expect(renormalizationFailureKind(new Error('OpenSearch POST /x/_search answered 403: {}'))).toBe('general');
    // a reset, broken or refused connection while a response streams in: the cluster, not the run
    expect(renormalizationFailureKind(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }))).toBe('transient');
    expect(renormalizationFailureKind(new Error('aborted'))).toBe('transient');
    expect(renormalizationFailureKind(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe('transient');
    expect(renormalizationFailureKind(Object.assign(new Error('premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }))).toBe('transient');
    expect(renormalizationFailureKind(response(400, 'task_cancelled_exception'))).toBe('transient');
    expect(renormalizationFailureKind(response(413, 'content_too_long'))).toBe('instance');
    expect(renormalizationFailureKind(response(400, 'illegal_argument_exception'))).toBe('instance');
    expect(renormalizationFailureKind(new Error('OpenSearch POST /x/_search answered 400: {"error":"too_many_clauses"}'))).toBe('instance');
    expect(renormalizationFailureKind(new Error('recording refused documents failed: mapper_parsing_exception: failed to parse'))).toBe('instance');
    expect(renormalizationFailureKind(new RangeError('Invalid string length'))).toBe('instance');
  });
  it('cuts a page at the event budget, keeps at least one instance, and respects the instance limit', () => {
    const listed = [{ id: 'a', events: 3 }, { id: 'b', events: 4 }, { id: 'c', events: 50 }, { id: 'd', events: 1 }];
    expect(pageWithinBudget(listed, 7, 10).map((i) => i.id)).toEqual(['a', 'b']);
    expect(pageWithinBudget(listed, 6, 10).map((i) => i.id)).toEqual(['a']);
    expect(pageWithinBudget(listed.slice(2), 7, 10).map((i) => i.id)).toEqual(['c']);
    expect(pageWithinBudget(listed, 1_000, 3).map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(pageWithinBudget(listed, 1_000, 1).map((i) => i.id)).toEqual(['a']);
    expect(pageWithinBudget([], 1_000, 4)).toEqual([]);
  });
});
