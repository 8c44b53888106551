// Counts, the filters beyond field conditions, durations and a task's run against a recording Reader: what reaches the
// backend (filter trees, batching, count options), the duration bounds, the query cost of counts and indexStatus. The
// results on real data are the conformance suite's job.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { durationBoundMicros, durationMs } from '../src/duration.js';
import type { Reader } from '../src/reader.js';
import { codes, INSTANCE_A, postGraphQL, RecordingReader, TASK_A0, TASK_B1, testApp } from '@workflow-index/testkit';

describe('TaskExecution.workflowInstance', () => {
  it('a page of task executions loads its runs with one listInstances call (id in …), not one per task', async () => {
    const { app, reader } = testApp();
    const { body } = await postGraphQL(app, '{ getTaskExecutions(limit: 10) { id workflowInstance { id name } } }');
    expect(body.errors).toBeUndefined();
    expect(body.data?.['getTaskExecutions']).toEqual([
      { id: TASK_A0.id, workflowInstance: { id: 'inst-a', name: 'order-intake' } },
      { id: TASK_B1.id, workflowInstance: { id: 'inst-b', name: 'payment-capture' } },
    ]);
    const lists = reader.callsOf('listInstances');
    expect(lists).toHaveLength(1);
    expect(lists[0]?.query).toEqual({
      filter: { kind: 'string', field: 'id', predicate: { op: 'in', values: ['inst-a', 'inst-b'] } },
      orderBy: [{ field: 'id', direction: 'ASC' }],
      limit: 2,
      offset: 0,
      payloads: false,
    });
    expect(reader.calls.map((c) => c.method)).toEqual(['listTasks', 'listInstances']);
  });

  it('runs → their tasks → the tasks\' runs: three reader calls for the whole tree; payloads only when selected', async () => {
    const { app, reader } = testApp();
    const { body } = await postGraphQL(app, '{ getWorkflowInstances { id taskExecutions { id workflowInstance { id inputData } } } }');
    expect(body.errors).toBeUndefined();
    expect(reader.calls.map((c) => c.method)).toEqual(['listInstances', 'tasksOfInstances', 'listInstances']);
    expect(reader.callsOf('listInstances')[1]?.query.payloads).toBe(true);
    const first = (body.data?.['getWorkflowInstances'] as { taskExecutions: { workflowInstance: unknown }[] }[])[0];
    expect(first?.taskExecutions[0]?.workflowInstance).toEqual({ id: 'inst-a', inputData: INSTANCE_A.inputData });
  });

  it('a task whose run is not served (placeholder) has workflowInstance null', async () => {
    const reader = new RecordingReader({ instances: [] });
    const { app } = testApp({ reader });
    const { body } = await postGraphQL(app, '{ getTaskExecution(id: "x") { id } getTaskExecutions(limit: 1) { workflowInstance { id } } }');
    expect(body.data?.['getTaskExecutions']).toEqual([{ workflowInstance: null }]);
  });
});

describe('counts and filter trees', () => {
  it('counts get the filter tree and COUNT_EXACT_LIMIT; status counts come in enum order', async () => {
    const { app, reader } = testApp();
    const { body } = await postGraphQL(app, `{
      countWorkflowInstances(filter: {status: FAULTED}) { value exact }
      countTaskExecutions(filter: {workflowName: "w"}) { value exact }
      workflowInstanceStatusCounts { status count { value exact } }
    }`);
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      countWorkflowInstances: { value: 2, exact: true },
      countTaskExecutions: { value: 2, exact: true },
      workflowInstanceStatusCounts: [
        { status: 'RUNNING', count: { value: 0, exact: true } },
        { status: 'COMPLETED', count: { value: 1, exact: true } },
        { status: 'FAULTED', count: { value: 2, exact: true } },
        { status: 'CANCELLED', count: { value: 3, exact: true } },
        { status: 'SUSPENDED', count: { value: 4, exact: false } },
      ],
    });
    expect(reader.calls).toEqual(expect.arrayContaining([
      { method: 'countInstances', filter: { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }, options: { exactLimit: 10_000 } },
      { method: 'countTasks', filter: { kind: 'instance', node: { kind: 'string', field: 'name', predicate: { op: 'eq', value: 'w' } } }, options: { exactLimit: 10_000 } },
      { method: 'countInstancesByStatus', filter: null, options: { exactLimit: 10_000 } },
    ]));
  });

  it('JSON operators, durations and taskExecutions become their tree nodes, in the same list call as field conditions', async () => {
    const { app, reader } = testApp();
    const { body } = await postGraphQL(
      app,
      `{ getWorkflowInstances(orderBy: {duration: DESC}, filter: {duration: {gte: 1.5, isNull: false}, taskExecutions: {status: "FAILED", duration: {lt: 2}},
           input: {ne: [{key: "a", value: "1"}], in: [{key: "b.0", values: ["x", "2"]}], contains: [{key: "c", value: "7"}], exists: [{key: "d", value: false}]}}) { id } }`,
    );
    expect(body.errors).toBeUndefined();
    const call = reader.calls[0];
    expect(call?.method).toBe('listInstances');
    expect(call?.method === 'listInstances' && call.query.orderBy).toEqual([{ field: 'duration', direction: 'DESC' }]);
    expect(call?.method === 'listInstances' && call.query.filter).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'jsonOp', field: 'input', path: ['a'], predicate: { op: 'ne', value: '1' } },
        { kind: 'jsonOp', field: 'input', path: ['c'], predicate: { op: 'contains', value: '7' } },
        { kind: 'jsonOp', field: 'input', path: ['b', '0'], predicate: { op: 'in', values: ['x', '2'] } },
        { kind: 'jsonOp', field: 'input', path: ['d'], predicate: { op: 'exists', value: false } },
        { kind: 'duration', predicate: { op: 'gte', value: 1.5 } },
        { kind: 'duration', predicate: { op: 'isNull', value: false } },
        {
          kind: 'tasks',
          node: { kind: 'and', nodes: [{ kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }, { kind: 'duration', predicate: { op: 'lt', value: 2 } }] },
        },
      ],
    });
    await postGraphQL(app, '{ getWorkflowInstances(filter: {name: "x"}) { id } }');
    expect(reader.callsOf('listInstances')).toHaveLength(2);
    expect(reader.callsOf('listInstances')[1]?.query.filter).toEqual({ kind: 'string', field: 'name', predicate: { op: 'eq', value: 'x' } });
  });

  it('a task status in taskExecutions is checked like everywhere else', async () => {
    const { app, reader } = testApp();
    const { body } = await postGraphQL(app, '{ getWorkflowInstances(filter: {taskExecutions: {status: "nope"}}) { id } }');
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(body.errors?.[0]?.message).toContain('filter.taskExecutions.status.eq must be one of RUNNING, COMPLETED, FAULTED, CANCELLED, SUSPENDED');
    expect(reader.calls).toEqual([]);
  });
});

describe('durations', () => {
  it('durationMs from the served times, microsecond-exact; null while either is missing', () => {
    expect(durationMs({ startDate: '2026-05-12T09:14:03.512378Z', endDate: '2026-05-12T09:14:03.515950Z' })).toBe(3.572);
    expect(durationMs({ startDate: '2026-05-12T23:59:59.999999Z', endDate: '2026-05-13T00:00:00.000001Z' })).toBe(0.002);
    expect(durationMs({ startDate: '2026-05-12T09:14:03.512378Z', endDate: null })).toBeNull();
  });

  it('a millisecond bound as whole microseconds means exactly the same set (any decimal the client writes)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 6 }), (d, m, scale) => {
        const ms = m / 10 ** scale; // the double a client's decimal m·10^-scale parses to
        const micros = BigInt(durationBoundMicros('gt', ms));
        const ceil = BigInt(durationBoundMicros('gte', ms));
        // exactly: d µs vs m·10^-scale ms = m·1000·10^-scale µs, compared as d·10^scale vs m·1000
        const left = d * 10n ** BigInt(scale);
        const right = BigInt(m) * 1000n;
        expect(d > micros).toBe(left > right);
        expect(d >= ceil).toBe(left >= right);
        expect(d < ceil).toBe(left < right);
        expect(d <= BigInt(durationBoundMicros('lte', ms))).toBe(left <= right);
        expect(BigInt(durationBoundMicros('lt', ms))).toBe(ceil);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('cost and index status', () => {
  it('a count costs COUNT_EXACT_LIMIT/100 rows (status counts five times that): 11 counts exceed a budget of 1000', async () => {
    const { app, reader } = testApp({ env: { GRAPHQL_MAX_COST: '1000' } });
    const counts = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `c${i}: countWorkflowInstances { value }`).join(' ')} }`;
    expect((await postGraphQL(app, counts(10))).body.errors).toBeUndefined();
    const { body } = await postGraphQL(app, counts(11));
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(body.errors?.[0]?.message).toMatch(/^Query cost 1100 exceeds the budget of 1000 rows/);
    const statuses = await postGraphQL(app, '{ a: workflowInstanceStatusCounts { status } b: workflowInstanceStatusCounts { status } c: countTaskExecutions { value } }');
    expect(statuses.body.errors?.[0]?.message).toMatch(/^Query cost 1100 exceeds/);
    expect(reader.callsOf('countInstances')).toHaveLength(10);
    expect(reader.calls.filter((c) => c.method.startsWith('count'))).toHaveLength(10);
  });

  it('indexStatus from the ingestion statistics: lag on the server clock, counters summed, the backend\'s name', async () => {
    const { app } = testApp();
    const before = Date.now();
    const { body } = await postGraphQL(app, '{ indexStatus { backend newestEventTime lagSeconds rawEvents ingestErrors placeholders } }');
    const after = Date.now();
    const status = body.data?.['indexStatus'] as Record<string, unknown>;
    const newest = Date.parse('2026-05-12T09:15:09.454Z') / 1000 + 0.000091;
    expect(status).toEqual({ backend: 'recording', newestEventTime: '2026-05-12T09:15:09.454091Z', lagSeconds: expect.any(Number), rawEvents: 78, ingestErrors: 2, placeholders: 1 });
    expect(status['lagSeconds']).toBeGreaterThanOrEqual(before / 1000 - newest - 1e-6);
    expect(status['lagSeconds']).toBeLessThanOrEqual(after / 1000 - newest + 1e-6);
    const empty = new RecordingReader({ ingestionStats: async () => ({ rawEvents: {}, ingestErrors: 0, newestEventTime: null, placeholderInstances: 0, instances: 0, taskExecutions: 0 }) });
    const res = await postGraphQL(testApp({ reader: empty as Reader as RecordingReader }).app, '{ indexStatus { backend newestEventTime lagSeconds rawEvents } }');
    expect(res.body.data?.['indexStatus']).toEqual({ backend: 'recording', newestEventTime: null, lagSeconds: null, rawEvents: 0 });
  });
});

describe('workflow_index_instances_by_status from the per-status counts', () => {
  const series = (text: string): string[] => text.split('\n').filter((line) => line.startsWith('workflow_index_instances_by_status{'));

  it('one series per status; scrapes within 15 s share one count', async () => {
    const { app, reader } = testApp();
    const first = series(await (await app.fetch(new Request('http://localhost/q/metrics'))).text());
    expect(first).toEqual([
      'workflow_index_instances_by_status{status="RUNNING",backend="test"} 0',
      'workflow_index_instances_by_status{status="COMPLETED",backend="test"} 1',
      'workflow_index_instances_by_status{status="FAULTED",backend="test"} 2',
      'workflow_index_instances_by_status{status="CANCELLED",backend="test"} 3',
      'workflow_index_instances_by_status{status="SUSPENDED",backend="test"} 4',
    ]);
    await app.fetch(new Request('http://localhost/q/metrics'));
    expect(reader.callsOf('countInstancesByStatus')).toEqual([{ method: 'countInstancesByStatus', filter: null, options: { exactLimit: 10_000 } }]);
  });

  it('the cache reads again after its age, keeps the last values when a read fails, and is bounded by the timeout', async () => {
    let clock = 0;
    let fail = false;
    let hang = false;
    const reader = new RecordingReader();
    const counting = reader.countInstancesByStatus.bind(reader);
    Object.assign(reader, {
      countInstancesByStatus: async (...args: Parameters<typeof counting>) => {
        if (hang) return new Promise(() => undefined);
        if (fail) throw new Error('down');
        return counting(...args);
      },
    });
    const errors: unknown[] = [];
    const { StatusCountsCache } = await import('../src/status-counts-cache.js');
    const cache = new StatusCountsCache(reader, { exactLimit: 5, timeoutMs: 50, maxAgeMs: 1000, now: () => clock, onError: (e) => errors.push(e) });
    expect(await cache.get()).toEqual({ RUNNING: 0, COMPLETED: 1, FAULTED: 2, CANCELLED: 3, SUSPENDED: 4 });
    clock = 999;
    await cache.get();
    expect(reader.calls).toHaveLength(1);
    clock = 1000;
    fail = true;
    expect(await cache.get()).toEqual({ RUNNING: 0, COMPLETED: 1, FAULTED: 2, CANCELLED: 3, SUSPENDED: 4 });
    hang = true;
    expect(await cache.get()).toEqual({ RUNNING: 0, COMPLETED: 1, FAULTED: 2, CANCELLED: 3, SUSPENDED: 4 });
    expect(errors.map((e) => (e as Error).message)).toEqual(['down', 'instances by status did not answer within 50 ms']);
    const down = new RecordingReader();
    Object.assign(down, { countInstancesByStatus: () => Promise.reject(new Error('down')) });
    expect(await new StatusCountsCache(down, { exactLimit: 5, timeoutMs: 50 }).get()).toBeNull();
  });
});

describe('workflowInstance batches', () => {
  it('at most 1000 instances per read: two aliases of 700 tasks of distinct runs make two reads', async () => {
    const tasks = Array.from({ length: 1400 }, (_, i) => ({ ...TASK_A0, id: `t${i}`, workflowInstanceId: `run-${i}` }));
    const instances = Array.from({ length: 1400 }, (_, i) => ({ ...INSTANCE_A, id: `run-${i}` }));
    // answers `id in [...]` as a backend does (the plain recording reader ignores filters)
    class ById extends RecordingReader {
      override async listInstances(query: Parameters<RecordingReader['listInstances']>[0]) {
        await super.listInstances(query);
        const f = query.filter;
        const wanted = f?.kind === 'string' && f.predicate.op === 'in' ? new Set(f.predicate.values) : new Set<string>();
        return instances.filter((i) => wanted.has(i.id));
      }
    }
    const reader = new ById({ tasks, instances });
    const { app } = testApp({ reader, env: { GRAPHQL_MAX_COST: '5000' } });
    const { body } = await postGraphQL(app, '{ a: getTaskExecutions(limit: 700) { workflowInstance { id } } b: getTaskExecutions(limit: 700, offset: 700) { workflowInstance { id } } }');
    expect(body.errors).toBeUndefined();
    expect((body.data?.['b'] as { workflowInstance: { id: string } }[])[699]?.workflowInstance.id).toBe('run-1399');
    expect(reader.callsOf('listInstances').map((c) => c.query.limit)).toEqual([1000, 400]);
  });
});
