// The runs' task states (src/task-states.ts) and the instance filter `taskExecutions` on status and name that reads
// them (src/reader/lookups/task-states-filter.ts): the states of generated runs, and on the real node the same runs
// and counts as the two steps over the task index, for any such filter and its negation (fast-check).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstanceFilter, TaskFilter } from '@workflow-index/core';
import { KEYWORD_LIMIT } from '../src/long-detail.js';
import { applyNormalizedIndices, normalizedIndexNames } from '../src/normalized-indices.js';
import { recomputeInstances, sendBulk, type BulkLine } from '../src/normalizer-recompute.js';
import { instanceEvents } from './support/bench-dataset.js';
import { parseLosslessJson } from '@workflow-index/events';
import type { RawHit } from '../src/raw-event-source.js';
import { MAX_TASK_STATES, taskStates } from '../src/task-states.js';
import { createOpenSearchReader, type OpenSearchReader } from '../src/reader/opensearch-reader.js';
import { taskStatesQuery } from '../src/reader/lookups/task-states-filter.js';
import { createTestNamespace, openSearchReachable, requestPathsOf, type TestNamespace } from './support/test-node.js';

const STATUSES = ['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'] as const;
const NAMES = ['validate', 'charge', 'a/b', '', 'FAULTED/validate', 'ünïcode'];

describe('task states of a run', () => {
  it('are the distinct status/name pairs, sorted; complete unless capped', () => {
    const executions = [
      { status: 'FAULTED', task_name: 'charge' }, { status: 'COMPLETED', task_name: 'validate' },
      { status: 'FAULTED', task_name: 'charge' }, { status: 'COMPLETED', task_name: 'a/b' },
    ];
    expect(taskStates(executions)).toEqual({ task_states: ['COMPLETED/a/b', 'COMPLETED/validate', 'FAULTED/charge'], task_states_complete: true });
    expect(taskStates([])).toEqual({ task_states: [], task_states_complete: true });
  });

  it('a state beyond the keyword limit is left out and marks them incomplete; too many states keep none', () => {
    const long = 'x'.repeat(KEYWORD_LIMIT);
    expect(taskStates([{ status: 'FAULTED', task_name: long }, { status: 'COMPLETED', task_name: 'a' }])).toEqual({ task_states: ['COMPLETED/a'], task_states_complete: false });
    const many = Array.from({ length: MAX_TASK_STATES + 1 }, (_, i) => ({ status: 'COMPLETED', task_name: `t${i}` }));
    expect(taskStates(many)).toEqual({ task_states: [], task_states_complete: false });
    expect(taskStates(many.slice(1)).task_states_complete).toBe(true);
  });

  it('only status (and name) conditions, eq or in, are read from them', () => {
    const status: TaskFilter = { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } };
    const name: TaskFilter = { kind: 'string', field: 'taskName', predicate: { op: 'in', values: ['a', 'b'] } };
    expect(taskStatesQuery(status)).not.toBeNull();
    expect(taskStatesQuery({ kind: 'and', nodes: [name, status] })).toEqual({ terms: { task_states: ['FAULTED/a', 'FAULTED/b'] } });
    expect(taskStatesQuery(name)).toBeNull(); // a name alone: any status, left to the task index
    expect(taskStatesQuery({ kind: 'and', nodes: [status, status] })).toBeNull();
    expect(taskStatesQuery({ kind: 'or', nodes: [status, name] })).toBeNull();
    expect(taskStatesQuery({ kind: 'not', node: status })).toBeNull();
    expect(taskStatesQuery({ kind: 'and', nodes: [status, { kind: 'string', field: 'taskName', predicate: { op: 'startsWith', value: 'a' } }] })).toBeNull();
    // a status a task document cannot hold, or more pairs than one terms query takes: left to the task index
    expect(taskStatesQuery({ kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED/a' } })).toBeNull();
    const manyNames: TaskFilter = { kind: 'string', field: 'taskName', predicate: { op: 'in', values: Array.from({ length: 32_769 }, (_, i) => `t${i}`) } };
    const twoStatuses: TaskFilter = { kind: 'string', field: 'status', predicate: { op: 'in', values: ['FAULTED', 'CANCELLED'] } };
    expect(taskStatesQuery({ kind: 'and', nodes: [twoStatuses, manyNames] })).toBeNull();
    expect(taskStatesQuery({ kind: 'and', nodes: [status, manyNames] })).not.toBeNull();
  });
});

const available = await openSearchReachable();

describe.skipIf(!available)('taskExecutions on status and name: the task states answer as the task index does', () => {
  let ns: TestNamespace;
  let reader: OpenSearchReader;
  const RUNS = 60;

  beforeAll(async () => {
    ns = createTestNamespace();
    await applyNormalizedIndices(ns.client, ns.prefix);
    const names = normalizedIndexNames(ns.prefix);
    // Runs with 0-6 executions of random names and statuses; every third a placeholder (never served).
    const runs = fc.sample(fc.array(fc.record({ name: fc.constantFrom(...NAMES), status: fc.constantFrom(...STATUSES) }), { maxLength: 6 }), { numRuns: RUNS, seed: 11 });
    const lines: BulkLine[] = runs.flatMap((tasks, r) => {
      const id = `run-${String(r).padStart(3, '0')}`;
      const placeholder = r % 3 === 2;
      const executions = tasks.map((t, k) => ({
        id: `${id}:do/${k}/${t.name}`, instance_id: id, task_position: `do/${k}/${t.name}`, task_name: t.name, status: t.status,
        start_time_us: 1_775_000_000_000_000 + r * 1000 + k, start_time: null, placeholder,
      }));
      const instance = { id, status: 'COMPLETED', start_time_us: 1_775_000_000_000_000 + r * 1000, placeholder, ...taskStates(executions) };
      return [
        { action: { index: { _index: names.workflowInstances, _id: id } }, document: instance },
        ...executions.map((e) => ({ action: { index: { _index: names.taskExecutions, _id: e.id } }, document: e })),
      ];
    });
    expect(await sendBulk(ns.client, lines)).toEqual([]);
    await ns.refresh();
    reader = createOpenSearchReader({ client: ns.client, prefix: ns.prefix });
  }, 120_000);

  afterAll(async () => {
    await ns?.drop();
  });

  const ids = async (filter: InstanceFilter): Promise<string[]> =>
    (await reader.listInstances({ filter, orderBy: [{ field: 'id', direction: 'ASC' }], limit: 1000, offset: 0, payloads: false })).map((i) => i.id);
  const values = <T extends string>(items: readonly T[]) => fc.uniqueArray(fc.constantFrom(...items), { minLength: 1, maxLength: 3 });
  const leaf = (field: 'status' | 'taskName', vs: string[]): TaskFilter =>
    ({ kind: 'string', field, predicate: vs.length === 1 ? { op: 'eq', value: vs[0]! } : { op: 'in', values: vs } });
  // Always true for these runs' tasks: the same filter, but not one the task states can answer (two steps).
  const anyPosition: TaskFilter = { kind: 'string', field: 'taskPosition', predicate: { op: 'contains', value: '/' } };

  const filters = fc.tuple(values(STATUSES), fc.option(values([...NAMES, 'absent']), { nil: undefined }), fc.boolean());
  /** Checks one filter both ways; whether the states' answer read the task index. */
  const sameBothWays = async ([statuses, names, negated]: [string[], string[] | undefined, boolean]): Promise<boolean> => {
    const nodes = [leaf('status', statuses), ...(names === undefined ? [] : [leaf('taskName', names)])];
    const inner: TaskFilter = nodes.length === 1 ? nodes[0]! : { kind: 'and', nodes };
    expect(taskStatesQuery(inner)).not.toBeNull();
    const wrap = (node: TaskFilter): InstanceFilter => (negated ? { kind: 'not', node: { kind: 'tasks', node } } : { kind: 'tasks', node });
    let fromStates: string[] = [];
    let counted: unknown;
    const paths = await requestPathsOf(ns, async () => {
      fromStates = await ids(wrap(inner));
      counted = await reader.countInstances(wrap(inner), { exactLimit: 1000 });
    });
    const fromTasks = await ids(wrap({ kind: 'and', nodes: [...nodes, anyPosition] }));
    expect(fromStates).toEqual(fromTasks);
    expect(fromStates.every((id) => Number(id.slice(4)) % 3 !== 2)).toBe(true);
    expect(counted).toEqual({ value: fromTasks.length, exact: true });
    return paths.some((path) => path.includes(normalizedIndexNames(ns.prefix).taskExecutions));
  };

  it('the same runs and counts for any status (and name) filter, and its negation, without reading the task index', async () => {
    await fc.assert(
      fc.asyncProperty(filters, async (filter) => {
        expect(await sameBothWays(filter)).toBe(false);
      }),
      { numRuns: 40, seed: 5 },
    );
  }, 120_000);

  it('with one run whose states are capped: the same runs and counts, from the task index', async () => {
    const names = normalizedIndexNames(ns.prefix);
    const capped = { id: 'run-capped', status: 'COMPLETED', start_time_us: 1_775_000_000_000_000, placeholder: false, task_states: [], task_states_complete: false };
    const execution = { id: 'run-capped:do/0/validate', instance_id: 'run-capped', task_position: 'do/0/validate', task_name: 'validate', status: 'FAULTED', start_time_us: 1_775_000_000_000_000, start_time: null, placeholder: false };
    expect(await sendBulk(ns.client, [
      { action: { index: { _index: names.workflowInstances, _id: capped.id } }, document: capped },
      { action: { index: { _index: names.taskExecutions, _id: execution.id } }, document: execution },
    ])).toEqual([]);
    await ns.refresh();
    try {
      expect(await ids({ kind: 'tasks', node: { kind: 'and', nodes: [leaf('status', ['FAULTED']), leaf('taskName', ['validate'])] } })).toContain('run-capped');
      await fc.assert(
        fc.asyncProperty(filters, async (filter) => {
          expect(await sameBothWays(filter)).toBe(true);
        }),
        { numRuns: 15, seed: 6 },
      );
    } finally {
      await ns.client.delete({ index: names.workflowInstances, id: capped.id });
      await ns.client.delete({ index: names.taskExecutions, id: execution.id });
      await ns.refresh();
    }
  }, 120_000);

});

describe.skipIf(!available)('a refused execution document marks its run\'s task states incomplete', () => {
  let ns: TestNamespace;
  afterAll(async () => {
    await ns?.drop();
  });

  it('the run is written with its states, then marked incomplete, and the refusal recorded', async () => {
    ns = createTestNamespace();
    await applyNormalizedIndices(ns.client, ns.prefix);
    const names = normalizedIndexNames(ns.prefix);
    // A task index that refuses every execution document (strict, without `execution_index`).
    await ns.client.indices.delete({ index: names.taskExecutions });
    await ns.client.indices.create({ index: names.taskExecutions, body: { mappings: { dynamic: 'strict', properties: { id: { type: 'keyword' } } } } });
    const events = instanceEvents(1, 10, 3);
    const hits: RawHit[] = events.map((event, i) => ({ index: `${ns.prefix}raw`, id: `raw-${i}`, source: parseLosslessJson(JSON.stringify(event)), instanceId: String(event['instanceId']), ingestTimeMs: 1_775_000_000_000 + i }));
    const result = await recomputeInstances(ns.client, names, hits, { refresh: true });
    expect(result.instances).toBe(1);
    expect(result.rejectedEvents).toBe(3); // the three execution documents
    const run = ((await ns.client.get({ index: names.workflowInstances, id: String(events[0]!['instanceId']) })).body as { _source: Record<string, unknown> })._source;
    expect(run['task_states']).toEqual(['COMPLETED/price', 'COMPLETED/reserve', 'COMPLETED/validate']);
    expect(run['task_states_complete']).toBe(false);
  });
});
