// countWorkflowInstances by one taskExecutions condition on OpenSearch. On status and name alone: a count of the runs
// by their task states (task-states.ts), while every served run has them; a run written before they existed sends it
// back to the task index. Any other condition: the number of distinct runs of the matching served task executions (one
// composite aggregation of the task index), with no second search of those runs: a served task's run is served, since
// the task document repeats its run's placeholder flag. The count equals what the same filter lists, and a placeholder
// run's matching task is not counted.
import { translateInstanceFilter, type InstanceFilterArg } from '@workflow-index/core';
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { instanceEvents, writeDataset } from './support/bench-dataset.js';
import { parseLosslessJson } from '@workflow-index/events';
import { normalizeInstance } from '../src/normalize-instance.js';
import { applyNormalizedIndices, normalizedIndexNames } from '../src/normalized-indices.js';
import { documentId, sendBulk, type BulkLine } from '../src/normalizer-recompute.js';
import { type ParsedEvent, parseRawEvent } from '../src/raw-event-parse.js';
import { createOpenSearchReader } from '../src/reader/opensearch-reader.js';
import { requestPathsOf, type TestNamespace } from './support/test-node.js';

const RUNS = 400;

describeOpenSearch('OpenSearch: count of runs by one taskExecutions condition', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    await applyNormalizedIndices(ns.client, ns.prefix);
    const names = normalizedIndexNames(ns.prefix);
    await writeDataset(ns.client, names, RUNS, 10);
    // A placeholder run: run 17's task events (its task `validate` faulted) without its workflow events.
    const parsed: ParsedEvent[] = instanceEvents(17, RUNS, 10)
      .filter((event) => !String(event['eventType']).includes('.workflow.'))
      .map((event) => {
        const result = parseRawEvent(parseLosslessJson(JSON.stringify({ ...event, instanceId: 'placeholder-17' })));
        if (!result.ok) throw new Error(result.reason);
        return result.event;
      });
    const normalized = normalizeInstance('placeholder-17', parsed);
    expect(normalized.instance.placeholder).toBe(true);
    const lines: BulkLine[] = [
      { action: { index: { _index: names.workflowInstances, _id: normalized.instance.id } }, document: normalized.instance },
      ...normalized.executions.map((execution) => ({ action: { index: { _index: names.taskExecutions, _id: documentId(execution.id) } }, document: execution })),
    ];
    expect(await sendBulk(ns.client, lines)).toEqual([]);
    await ns.refresh();
  }, 300_000);

  const validateFaulted = translateInstanceFilter({ taskExecutions: { taskName: { eq: 'validate' }, status: { eq: 'FAULTED' } } } as InstanceFilterArg);

  it('on status and name: counts and lists from the runs\' task states, without reading the task index', async () => {
    const names = normalizedIndexNames(ns.prefix);
    const reader = createOpenSearchReader({ client: ns.client, prefix: ns.prefix });
    let listed: { id: string }[] = [];
    let count: unknown;
    const paths = await requestPathsOf(ns, async () => {
      listed = await reader.listInstances({ filter: validateFaulted, orderBy: [], limit: 1000, offset: 0, payloads: false });
      count = await reader.countInstances(validateFaulted, { exactLimit: 10_000 });
    });
    // Runs 1…200 fault at their first task (position (g / 200) % 10 = 0) when g % 20 is 17 or 18: 20 runs.
    expect(listed.map((run) => run.id)).not.toContain('placeholder-17');
    expect(listed).toHaveLength(20);
    expect(count).toEqual({ value: 20, exact: true });
    expect(paths.filter((path) => path.includes(names.taskExecutions))).toEqual([]);
  });

  it('any other task filter: the served runs of the matching tasks, with one search of the task index', async () => {
    const names = normalizedIndexNames(ns.prefix);
    const reader = createOpenSearchReader({ client: ns.client, prefix: ns.prefix });
    const filter = translateInstanceFilter({ taskExecutions: { taskName: { eq: 'validate' }, status: { eq: 'FAULTED' }, taskPosition: { startsWith: 'do/' } } } as InstanceFilterArg);
    const listed = await reader.listInstances({ filter, orderBy: [], limit: 1000, offset: 0, payloads: false });
    let count: unknown;
    const paths = await requestPathsOf(ns, async () => {
      count = await reader.countInstances(filter, { exactLimit: 10_000 });
    });
    expect(listed).toHaveLength(20);
    expect(count).toEqual({ value: 20, exact: true });
    expect(paths).toEqual([`/${encodeURIComponent(names.taskExecutions)}/_search`]);
  });

  it('a served run without task states (written by an earlier release): both answer from the task index, the same runs', async () => {
    const names = normalizedIndexNames(ns.prefix);
    const reader = createOpenSearchReader({ client: ns.client, prefix: ns.prefix });
    const before = await reader.listInstances({ filter: validateFaulted, orderBy: [], limit: 1000, offset: 0, payloads: false });
    // One of the 20 runs, as a release before the task states wrote it.
    const old = before[0]!.id;
    const source = ((await ns.client.get({ index: names.workflowInstances, id: old })).body as { _source: Record<string, unknown> })._source;
    const { task_states: _states, task_states_complete: _complete, ...earlier } = source;
    await ns.client.index({ index: names.workflowInstances, id: old, body: earlier });
    await ns.refresh();
    try {
      let listed: { id: string }[] = [];
      let count: unknown;
      const paths = await requestPathsOf(ns, async () => {
        listed = await reader.listInstances({ filter: validateFaulted, orderBy: [], limit: 1000, offset: 0, payloads: false });
        count = await reader.countInstances(validateFaulted, { exactLimit: 10_000 });
      });
      expect(listed.map((run) => run.id)).toEqual(before.map((run) => run.id));
      expect(count).toEqual({ value: 20, exact: true });
      expect(paths.filter((path) => path.includes(names.taskExecutions)).length).toBeGreaterThan(0);
    } finally {
      await ns.client.index({ index: names.workflowInstances, id: old, body: source });
      await ns.refresh();
    }
  });
});
