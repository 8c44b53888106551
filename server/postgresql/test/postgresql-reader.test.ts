// The SQL-specific properties of the PostgreSQL reader, against the real server: events written by a forwarder
// login role in the Fluent Bit statement shape, read by a reader login role.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import fc from 'fast-check';
import { BackendUnavailableError, DEFAULT_LIST_ORDER, effectiveSortKeys } from '@workflow-index/core';
import type { SimpleInstanceFilter, SimpleInstanceSortField, KeysetPosition, ListQuery, Reader, SortKey, SimpleTaskFilter, SimpleTaskSortField } from '@workflow-index/core';
import { createPool } from '../src/postgresql-pool.js';
import { createPostgresqlReader, preparedStatementName } from '../src/postgresql-reader.js';
import { createTestDatabase, ensureLoginRole, postgresReachable, type TestDatabase, openTestPool } from './support/test-database.js';
import { loadEvents, type Event } from './support/load-events.js';

const available = await postgresReachable();

const READER_ROLE = 'wi_reader_test_login';
const FORWARDER_ROLE = 'wi_forwarder_test_login';

const at = (seconds: string): string => `2026-01-01T00:00:${seconds}Z`;
const WF = (type: string): string => `io.serverlessworkflow.workflow.${type}.v1`;
const TASK = (type: string): string => `io.serverlessworkflow.task.${type}.v1`;

function started(instanceId: string, time: string, fields: Record<string, unknown>): Event {
  return { instanceId, eventType: WF('started'), timestamp: time, startTime: time, status: 'RUNNING', ...fields };
}
function taskEvent(instanceId: string, type: 'started' | 'completed' | 'faulted', position: string, time: string, extra: Record<string, unknown> = {}): Event {
  const timeKey = type === 'started' ? 'startTime' : 'endTime';
  const status = type === 'started' ? 'RUNNING' : type === 'completed' ? 'COMPLETED' : 'FAULTED';
  return { instanceId, eventType: TASK(type), timestamp: time, [timeKey]: time, taskPosition: position, taskName: position.split('/').at(-1), status, ...extra };
}

const INJECTION = "x'); DROP TABLE workflow_index.workflow_instances; --";
const LOOP_REPEAT_ID = 'r-1:do/1/loop@1767225601500000'; // 2026-01-01T00:00:01.5Z in epoch microseconds

const events: Event[] = [
  started('r-0', at('00.500000'), { workflowName: 'A%B', workflowNamespace: 'ns', input: { amount: '1000' } }),
  started('r-1', at('01.000001'), {
    workflowName: 'a%b', workflowNamespace: 'ns', workflowVersion: '1.0',
    input: { amount: 1000, price: 129.9, flag: true, s: '1000', items: [{ sku: 'X' }, { sku: 'Y' }], nested: { k: 'v', '0': 'zero-key' }, tags: ['vip'] },
  }),
  taskEvent('r-1', 'completed', 'do/3/orphan', at('01.050000')),
  taskEvent('r-1', 'started', 'do/0/first', at('01.100000'), { input: { n: 1 } }),
  taskEvent('r-1', 'completed', 'do/0/first', at('01.200000'), { output: { n: 2 } }),
  taskEvent('r-1', 'started', 'do/1/loop', at('01.300000')),
  taskEvent('r-1', 'completed', 'do/1/loop', at('01.400000')),
  taskEvent('r-1', 'started', 'do/1/loop', at('01.500000')),
  taskEvent('r-1', 'completed', 'do/1/loop', at('01.600000')),
  taskEvent('r-1', 'started', 'do/2/open', at('01.700000')),
  { instanceId: 'r-1', eventType: WF('completed'), timestamp: at('02.000000'), endTime: at('02.000000'), status: 'COMPLETED', output: { ok: true } },
  started('r-2', at('03.000000'), { workflowName: 'a_b', input: { amount: 12 } }),
  started('r-3', at('04.000000'), { workflowName: 'a\\b', workflowNamespace: 'NS' }),
  taskEvent('r-3', 'started', 'do/0/call', at('04.500000')),
  taskEvent('r-3', 'faulted', 'do/0/call', at('04.900000'), { error: { type: 'https://example.com/errors/http', title: 'Bad gateway', detail: 'upstream', status: 502, instance: 'do/0/call' } }),
  {
    instanceId: 'r-3', eventType: WF('faulted'), timestamp: at('05.000000'), endTime: at('05.000000'), status: 'FAULTED',
    error: { type: 'https://example.com/errors/http', title: 'Bad gateway', detail: 'upstream', status: 502, instance: 'do/0/call' },
  },
  started('r-4', at('06.000000'), { workflowName: 'axb', workflowNamespace: 'é', input: null }),
  // p-1: status-changed without workflow.started; p-2: task events only. Neither is ever served.
  { instanceId: 'p-1', eventType: WF('status-changed'), timestamp: at('07.000000'), status: 'RUNNING', lastUpdateTime: at('07.000000') },
  taskEvent('p-1', 'started', 'do/0/hidden', at('07.100000')),
  taskEvent('p-2', 'started', 'do/0/ghost', at('08.000000')),
];

const ALL = ['r-4', 'r-3', 'r-2', 'r-1', 'r-0']; // default order: startDate DESC

function instances(filter: SimpleInstanceFilter | null, extra: Partial<ListQuery<SimpleInstanceFilter, SimpleInstanceSortField>> = {}): ListQuery<SimpleInstanceFilter, SimpleInstanceSortField> {
  return { filter, orderBy: [], limit: 100, offset: 0, payloads: false, ...extra };
}
function tasks(filter: SimpleTaskFilter | null, extra: Partial<ListQuery<SimpleTaskFilter, SimpleTaskSortField>> = {}): ListQuery<SimpleTaskFilter, SimpleTaskSortField> {
  return { filter, orderBy: [], limit: 100, offset: 0, payloads: false, ...extra };
}
const str = (field: 'id' | 'name' | 'namespace' | 'version' | 'status' | 'error.type', predicate: Extract<SimpleInstanceFilter, { kind: 'string' }>['predicate']): SimpleInstanceFilter =>
  ({ kind: 'string', field, predicate });
const json = (path: string[], value: string, field: 'input' | 'output' = 'input'): SimpleInstanceFilter => ({ kind: 'json', field, path, value });
const not = (node: SimpleInstanceFilter): SimpleInstanceFilter => ({ kind: 'not', node });

interface Recorded { text: string; values: unknown[] }

/** Records every statement clients of this pool send (the reader issues exactly one per operation). */
function recordStatements(pool: pg.Pool): Recorded[] {
  const recorded: Recorded[] = [];
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0];
      if (typeof first === 'string') recorded.push({ text: first, values: (args[1] as unknown[]) ?? [] });
      else if (first && typeof first === 'object' && 'text' in first) {
        const q = first as { text: string; values?: unknown[] };
        recorded.push({ text: q.text, values: q.values ?? [] });
      }
      return original(...args);
    };
  });
  return recorded;
}

describe.skipIf(!available)('PostgreSQL reader (real PostgreSQL, reader login role)', () => {
  let db: TestDatabase;
  let readerPool: pg.Pool;
  let reader: Reader;
  let recorded: Recorded[];
  const idleErrors: Error[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    await ensureLoginRole(READER_ROLE, 'workflow_index_reader');
    await ensureLoginRole(FORWARDER_ROLE, 'workflow_index_forwarder');
    const forwarder = openTestPool({ connectionString: db.urlAs(FORWARDER_ROLE, 'test-password'), max: 1 });
    try {
      // Unqualified table names: the forwarder role's search_path is workflow_raw, as for Fluent Bit.
      await loadEvents(forwarder, events, { qualified: false, batchSizes: [3] });
    } finally {
      await forwarder.end();
    }
    readerPool = createPool({
      connection: { connectionString: db.urlAs(READER_ROLE, 'test-password'), max: 2 },
      queryTimeoutMs: 1500,
      connectTimeoutMs: 2000,
      applicationName: 'wi-reader-test',
      onIdleError: (error) => idleErrors.push(error),
    });
    recorded = recordStatements(readerPool);
    reader = createPostgresqlReader({ pool: readerPool });
  });
  afterAll(async () => {
    await reader?.close();
    await db?.drop();
  });

  it('serves an instance with microsecond UTC timestamps, JSON text payloads and the error record', async () => {
    const r1 = await reader.getInstance('r-1', { payloads: true });
    expect(r1).toEqual({
      id: 'r-1', name: 'a%b', namespace: 'ns', version: '1.0', status: 'COMPLETED',
      startDate: '2026-01-01T00:00:01.000001Z', endDate: '2026-01-01T00:00:02.000000Z', lastUpdate: '2026-01-01T00:00:02.000000Z',
      inputData: expect.any(String), outputData: '{"ok": true}', error: null,
    });
    expect(JSON.parse(r1?.inputData ?? 'null')).toEqual({
      amount: 1000, price: 129.9, flag: true, s: '1000', items: [{ sku: 'X' }, { sku: 'Y' }], nested: { k: 'v', '0': 'zero-key' }, tags: ['vip'],
    });
    const r3 = await reader.getInstance('r-3', { payloads: false });
    expect(r3).toEqual({
      id: 'r-3', name: 'a\\b', namespace: 'NS', version: null, status: 'FAULTED',
      startDate: '2026-01-01T00:00:04.000000Z', endDate: '2026-01-01T00:00:05.000000Z', lastUpdate: '2026-01-01T00:00:05.000000Z',
      error: { type: 'https://example.com/errors/http', title: 'Bad gateway', detail: 'upstream', status: 502, instance: 'do/0/call' },
    });
    expect(r3 && 'inputData' in r3).toBe(false);
    const r4 = await reader.getInstance('r-4', { payloads: true });
    expect([r4?.inputData, r4?.outputData]).toEqual([null, null]); // JSON null payload served as null
    expect(await reader.getInstance('nope', { payloads: true })).toBeNull();
  });

  it('never serves placeholders: not as instances, not their tasks, not by id', async () => {
    expect((await reader.listInstances(instances(null))).map((i) => i.id)).toEqual(ALL);
    expect(await reader.getInstance('p-1', { payloads: false })).toBeNull();
    expect(await reader.getInstance('p-2', { payloads: false })).toBeNull();
    expect(await reader.getTask('p-1:do/0/hidden', { payloads: false })).toBeNull();
    expect(await reader.getTask('p-2:do/0/ghost', { payloads: false })).toBeNull();
    const served = (await reader.listTasks(tasks(null))).map((t) => t.workflowInstanceId);
    expect(new Set(served)).toEqual(new Set(['r-1', 'r-3']));
    const batch = await reader.tasksOfInstances(['p-1', 'p-2'], { payloads: false });
    expect([...batch.entries()]).toEqual([['p-1', []], ['p-2', []]]);
    // One run alone takes its own statement (a scalar id): the same rule.
    for (const id of ['p-1', 'p-2']) expect([...(await reader.tasksOfInstances([id, id], { payloads: true })).entries()]).toEqual([[id, []]]);
    // The placeholders are stored, though: the raw data is there, only the reader hides it.
    const stored = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM workflow_index.task_executions WHERE instance_id IN ('p-1', 'p-2')`);
    expect(stored.rows[0]?.n).toBe('2');
  });

  it('sends values only as bind parameters: SQL in a value is just text', async () => {
    recorded.length = 0;
    expect(await reader.listInstances(instances(str('name', { op: 'eq', value: INJECTION })))).toEqual([]);
    expect(await reader.listInstances(instances(str('name', { op: 'like', pattern: [{ kind: 'literal', text: INJECTION }, { kind: 'any' }] })))).toEqual([]);
    expect(await reader.listInstances(instances(json([INJECTION, "'"], INJECTION)))).toEqual([]);
    expect(await reader.getInstance(INJECTION, { payloads: false })).toBeNull();
    expect(await reader.getTask(INJECTION, { payloads: false })).toBeNull();
    expect((await reader.tasksOfInstances([INJECTION], { payloads: false })).get(INJECTION)).toEqual([]);
    for (const statement of recorded) expect(statement.text).not.toContain('DROP');
    expect(recorded.filter((s) => s.values.some((v) => JSON.stringify(v).includes('DROP TABLE')))).toHaveLength(6);
    expect((await reader.listInstances(instances(null))).map((i) => i.id)).toEqual(ALL);
  });

  it('runs the fixed-shape lookups as named statements, each session preparing each once; lists stay unnamed', async () => {
    const session = openTestPool({ connectionString: db.urlAs(READER_ROLE, 'test-password'), max: 1 });
    const sent: Array<{ name?: string; text: string }> = [];
    session.on('connect', (client) => {
      const original = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        if (typeof args[0] === 'object' && args[0] !== null) sent.push(args[0] as { name?: string; text: string });
        return original(...args);
      };
    });
    const one = createPostgresqlReader({ pool: session, ownsPool: false });
    try {
      for (let round = 0; round < 2; round++) {
        expect((await one.getInstance('r-1', { payloads: false, tasks: { payloads: false } }))?.tasks?.map((t) => t.taskPosition)).toEqual(
          ['do/0/first', 'do/1/loop', 'do/1/loop', 'do/2/open', 'do/3/orphan'],
        );
        expect((await one.getInstance('r-3', { payloads: true }))?.status).toBe('FAULTED');
        expect((await one.getTask('p-1:do/0/hidden', { payloads: false }))).toBeNull();
        expect((await one.tasksOfInstances(['r-3'], { payloads: true })).get('r-3')?.map((t) => t.status)).toEqual(['FAULTED']);
        expect((await one.listInstances(instances(null, { limit: 1 }))).map((i) => i.id)).toEqual(['r-4']);
      }
      const names = sent.map((s) => s.name);
      expect(names.slice(0, 5)).toEqual(['wi_get_instance_nn', 'wi_get_instance_p', 'wi_get_task_n', 'wi_tasks_of_instance_p', undefined]);
      expect(names.slice(5)).toEqual(names.slice(0, 5));
      for (const s of sent) expect(preparedStatementName(s.text)).toBe(s.name);
      // The session holds the four it used, once each, whatever the number of calls.
      const held = await session.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
      expect(held.rows.map((r) => r.name)).toEqual(['wi_get_instance_nn', 'wi_get_instance_p', 'wi_get_task_n', 'wi_tasks_of_instance_p']);
    } finally {
      await session.end();
    }
  });

  it('uses two-valued logic: a leaf on NULL is false, not() matches exactly the other rows', async () => {
    const ids = async (filter: SimpleInstanceFilter): Promise<string[]> => (await reader.listInstances(instances(filter))).map((i) => i.id);
    // r-2 has no namespace
    expect(await ids(str('namespace', { op: 'ne', value: 'ns' }))).toEqual(['r-4', 'r-3']);
    expect(await ids(not(str('namespace', { op: 'eq', value: 'ns' })))).toEqual(['r-4', 'r-3', 'r-2']);
    expect(await ids(not(str('namespace', { op: 'ne', value: 'ns' })))).toEqual(['r-2', 'r-1', 'r-0']);
    expect(await ids(not(not(str('namespace', { op: 'ne', value: 'ns' }))))).toEqual(['r-4', 'r-3']);
    expect(await ids(str('namespace', { op: 'isNull', value: true }))).toEqual(['r-2']);
    expect(await ids(not(str('namespace', { op: 'isNull', value: true })))).toEqual(['r-4', 'r-3', 'r-1', 'r-0']);
    expect(await ids(str('namespace', { op: 'in', values: [] }))).toEqual([]);
    expect(await ids(not(str('namespace', { op: 'in', values: [] })))).toEqual(ALL);
    expect(await ids({ kind: 'and', nodes: [] })).toEqual(ALL);
    expect(await ids({ kind: 'or', nodes: [] })).toEqual([]);
    expect(await ids(not({ kind: 'and', nodes: [] }))).toEqual([]);
    expect(await ids(not({ kind: 'or', nodes: [] }))).toEqual(ALL);
    // De Morgan under not: not(ns = 'ns' and name like 'a*') = the rest, NULL namespace included
    const both: SimpleInstanceFilter = { kind: 'and', nodes: [str('namespace', { op: 'eq', value: 'ns' }), str('name', { op: 'startsWith', value: 'a' })] };
    expect(await ids(both)).toEqual(['r-1']);
    expect(await ids(not(both))).toEqual(['r-4', 'r-3', 'r-2', 'r-0']);
    const either: SimpleInstanceFilter = { kind: 'or', nodes: [str('namespace', { op: 'eq', value: 'NS' }), str('namespace', { op: 'eq', value: 'é' })] };
    expect(await ids(either)).toEqual(['r-4', 'r-3']);
    expect(await ids(not(either))).toEqual(['r-2', 'r-1', 'r-0']);
    // int leaf on NULL error.status
    expect(await ids({ kind: 'int', field: 'error.status', predicate: { op: 'eq', value: 502 } })).toEqual(['r-3']);
    expect(await ids({ kind: 'int', field: 'error.status', predicate: { op: 'ne', value: 502 } })).toEqual([]);
    expect(await ids(not({ kind: 'int', field: 'error.status', predicate: { op: 'eq', value: 502 } }))).toEqual(['r-4', 'r-2', 'r-1', 'r-0']);
    expect(await ids({ kind: 'int', field: 'error.status', predicate: { op: 'in', values: [500, 502] } })).toEqual(['r-3']);
    // time leaf on NULL endDate
    expect(await ids({ kind: 'time', field: 'endDate', predicate: { op: 'isNull', value: true } })).toEqual(['r-4', 'r-2', 'r-0']);
    expect(await ids(not({ kind: 'time', field: 'endDate', predicate: { op: 'lt', value: at('03.000000') } }))).toEqual(['r-4', 'r-3', 'r-2', 'r-0']);
  });

  it('treats %, _ and \\ literally in like, contains, startsWith and endsWith; matching is case-sensitive', async () => {
    const names = async (predicate: Extract<SimpleInstanceFilter, { kind: 'string' }>['predicate']): Promise<string[]> =>
      (await reader.listInstances(instances(str('name', predicate), { orderBy: [{ field: 'name', direction: 'ASC' }] }))).map((i) => i.name);
    // Names: 'A%B', 'a%b', 'a_b', 'a\b', 'axb'
    expect(await names({ op: 'like', pattern: [{ kind: 'literal', text: 'a%b' }] })).toEqual(['a%b']);
    expect(await names({ op: 'like', pattern: [{ kind: 'literal', text: 'a_b' }] })).toEqual(['a_b']);
    expect(await names({ op: 'like', pattern: [{ kind: 'literal', text: 'a\\b' }] })).toEqual(['a\\b']);
    expect(await names({ op: 'like', pattern: [{ kind: 'literal', text: 'a' }, { kind: 'one' }, { kind: 'literal', text: 'b' }] })).toEqual(['a%b', 'a\\b', 'a_b', 'axb']);
    expect(await names({ op: 'like', pattern: [{ kind: 'literal', text: 'A' }, { kind: 'any' }] })).toEqual(['A%B']);
    expect(await names({ op: 'like', pattern: [{ kind: 'any' }, { kind: 'literal', text: '%' }, { kind: 'any' }] })).toEqual(['A%B', 'a%b']);
    expect(await names({ op: 'contains', value: '%' })).toEqual(['A%B', 'a%b']);
    expect(await names({ op: 'contains', value: '_' })).toEqual(['a_b']);
    expect(await names({ op: 'contains', value: '\\' })).toEqual(['a\\b']);
    expect(await names({ op: 'startsWith', value: 'a_' })).toEqual(['a_b']);
    expect(await names({ op: 'endsWith', value: '%b' })).toEqual(['a%b']);
    expect(await names({ op: 'endsWith', value: 'B' })).toEqual(['A%B']);
    expect(await names({ op: 'eq', value: 'A_B' })).toEqual([]);
    expect(await names({ op: 'in', values: ['axb', 'a\\b', 'AXB'] })).toEqual(['a\\b', 'axb']);
  });

  it('matches JSON paths as string, number (by value) or boolean; a missing path never matches', async () => {
    const ids = async (filter: SimpleInstanceFilter): Promise<string[]> => (await reader.listInstances(instances(filter))).map((i) => i.id);
    expect(await ids(json(['amount'], '1000'))).toEqual(['r-1', 'r-0']); // r-1 number 1000, r-0 string "1000"
    expect(await ids(json(['amount'], '1000.0'))).toEqual(['r-1']);
    expect(await ids(json(['amount'], '1e3'))).toEqual(['r-1']);
    expect(await ids(json(['price'], '129.90'))).toEqual(['r-1']);
    expect(await ids(json(['amount'], '12'))).toEqual(['r-2']);
    expect(await ids(json(['flag'], 'true'))).toEqual(['r-1']);
    expect(await ids(json(['flag'], 'True'))).toEqual([]);
    expect(await ids(json(['flag'], 'false'))).toEqual([]);
    expect(await ids(json(['s'], '1000'))).toEqual(['r-1']);
    expect(await ids(json(['s'], '1000.0'))).toEqual([]); // a JSON string compares as text
    expect(await ids(json(['items', '1', 'sku'], 'Y'))).toEqual(['r-1']);
    expect(await ids(json(['items', '0', 'sku'], 'Y'))).toEqual([]);
    expect(await ids(json(['items', 'sku'], 'X'))).toEqual([]);
    expect(await ids(json(['tags'], 'vip'))).toEqual([]); // an array is not its element
    expect(await ids(json(['nested', 'k'], 'v'))).toEqual(['r-1']);
    expect(await ids(json(['nested', '0'], 'zero-key'))).toEqual(['r-1']);
    expect(await ids(json(['ok'], 'true', 'output'))).toEqual(['r-1']);
    expect(await ids(json(['nope'], 'x'))).toEqual([]);
    expect(await ids(not(json(['nope'], 'x')))).toEqual(ALL);
    expect(await ids(not(json(['amount'], '1000')))).toEqual(['r-4', 'r-3', 'r-2']);
  });

  it('lets an object-key JSON filter use the GIN jsonb_path_ops index', async () => {
    recorded.length = 0;
    await reader.listInstances(instances(json(['customer', 'name'], 'Zoë')));
    const statement = recorded.at(-1);
    expect(statement?.text).toContain('@>');
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement?.text ?? ''}`, statement?.values);
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('workflow_instances_input_gin');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('orders by the client keys with nulls last in both directions, code point order, then id', async () => {
    const order = async (direction: 'ASC' | 'DESC'): Promise<string[]> =>
      (await reader.listInstances(instances(null, { orderBy: [{ field: 'namespace', direction }] }))).map((i) => `${i.namespace}/${i.id}`);
    // r-0 and r-1 share 'ns': id ASC breaks the tie in both directions
    expect(await order('ASC')).toEqual(['NS/r-3', 'ns/r-0', 'ns/r-1', 'é/r-4', 'null/r-2']);
    expect(await order('DESC')).toEqual(['é/r-4', 'ns/r-0', 'ns/r-1', 'NS/r-3', 'null/r-2']);
    const endDesc = await reader.listInstances(instances(null, { orderBy: [{ field: 'endDate', direction: 'DESC' }, { field: 'name', direction: 'DESC' }] }));
    expect(endDesc.map((i) => i.id)).toEqual(['r-3', 'r-1', 'r-4', 'r-2', 'r-0']);
    const page = await reader.listInstances(instances(null, { limit: 2, offset: 1 }));
    expect(page.map((i) => i.id)).toEqual(['r-3', 'r-2']);
    expect(await reader.listInstances(instances(null, { limit: 0 }))).toEqual([]);
    const taskOrder = await reader.listTasks(tasks(null, { orderBy: [{ field: 'endDate', direction: 'ASC' }] }));
    expect(taskOrder.map((t) => t.id)).toEqual([
      'r-1:do/3/orphan', 'r-1:do/0/first', 'r-1:do/1/loop', LOOP_REPEAT_ID, 'r-3:do/0/call', 'r-1:do/2/open',
    ]);
  });

  it('filters tasks by field, time (microseconds, any offset) and error', async () => {
    const ids = async (filter: SimpleTaskFilter, extra: Partial<ListQuery<SimpleTaskFilter, SimpleTaskSortField>> = {}): Promise<string[]> =>
      (await reader.listTasks(tasks(filter, extra))).map((t) => t.id);
    expect(await ids({ kind: 'string', field: 'taskName', predicate: { op: 'eq', value: 'loop' } })).toEqual([LOOP_REPEAT_ID, 'r-1:do/1/loop']);
    expect(await ids({ kind: 'string', field: 'workflowInstanceId', predicate: { op: 'eq', value: 'r-3' } })).toEqual(['r-3:do/0/call']);
    expect(await ids({ kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } })).toEqual(['r-3:do/0/call']);
    expect(await ids({ kind: 'string', field: 'error.title', predicate: { op: 'eq', value: 'Bad gateway' } })).toEqual(['r-3:do/0/call']);
    expect(await ids({ kind: 'time', field: 'startDate', predicate: { op: 'between', from: at('01.100000'), to: '2026-01-01T01:00:01.500000+01:00' } }))
      .toEqual([LOOP_REPEAT_ID, 'r-1:do/1/loop', 'r-1:do/0/first']);
    expect(await ids({ kind: 'time', field: 'startDate', predicate: { op: 'gt', value: at('01.499999') } }, { orderBy: [{ field: 'startDate', direction: 'ASC' }] }))
      .toEqual([LOOP_REPEAT_ID, 'r-1:do/2/open', 'r-3:do/0/call']);
    expect(await ids({ kind: 'time', field: 'endDate', predicate: { op: 'isNull', value: true } })).toEqual(['r-1:do/2/open']);
    const instanceTimes = (await reader.listInstances(instances({ kind: 'time', field: 'startDate', predicate: { op: 'gt', value: at('01.000001') } }))).map((i) => i.id);
    expect(instanceTimes).toEqual(['r-4', 'r-3', 'r-2']);
    const gte = (await reader.listInstances(instances({ kind: 'time', field: 'startDate', predicate: { op: 'gte', value: at('01.000001') } }))).map((i) => i.id);
    expect(gte).toEqual(['r-4', 'r-3', 'r-2', 'r-1']);
    const task = await reader.getTask('r-1:do/0/first', { payloads: true });
    expect(task).toEqual({
      id: 'r-1:do/0/first', workflowInstanceId: 'r-1', taskName: 'first', taskPosition: 'do/0/first', status: 'COMPLETED',
      startDate: '2026-01-01T00:00:01.100000Z', endDate: '2026-01-01T00:00:01.200000Z', inputData: '{"n": 1}', outputData: '{"n": 2}', error: null,
    });
  });

  it('loads the tasks of a whole page in one statement, chronological per instance, every id present', async () => {
    recorded.length = 0;
    const batch = await reader.tasksOfInstances(['r-1', 'r-3', 'r-2', 'unknown', 'p-1'], { payloads: false });
    expect(recorded).toHaveLength(1);
    expect([...batch.keys()]).toEqual(['r-1', 'r-3', 'r-2', 'unknown', 'p-1']);
    expect(batch.get('r-1')?.map((t) => t.id)).toEqual(['r-1:do/0/first', 'r-1:do/1/loop', LOOP_REPEAT_ID, 'r-1:do/2/open', 'r-1:do/3/orphan']);
    expect(batch.get('r-3')?.map((t) => [t.id, t.status, t.error?.status])).toEqual([['r-3:do/0/call', 'FAULTED', 502]]);
    expect([batch.get('r-2'), batch.get('unknown'), batch.get('p-1')]).toEqual([[], [], []]);
    expect(batch.get('r-1')?.every((t) => !('inputData' in t))).toBe(true);
  });

  it('serves one run\'s tasks as the batch does, with a plan the session makes once and reuses', async () => {
    for (const payloads of [false, true]) {
      const batch = await reader.tasksOfInstances(['r-1', 'r-3', 'r-2', 'unknown'], { payloads });
      for (const id of ['r-1', 'r-3', 'r-2', 'unknown']) expect((await reader.tasksOfInstances([id], { payloads })).get(id)).toEqual(batch.get(id));
    }
    const session = openTestPool({ connectionString: db.urlAs(READER_ROLE, 'test-password'), max: 1 });
    try {
      const one = createPostgresqlReader({ pool: session, ownsPool: false });
      const ids = ['r-1', 'r-3', 'r-2', 'unknown', 'p-1', 'p-2'];
      for (let i = 0; i < 4 * ids.length; i++) await one.tasksOfInstances([ids[i % ids.length] as string], { payloads: false });
      // PostgreSQL plans a named statement for its values 5 times, then keeps one generic plan unless that one costs more:
      // the tasks of one run are then executed without planning (re-planning cost more than executing).
      const plans = await session.query<{ generic_plans: string; custom_plans: string }>('SELECT generic_plans, custom_plans FROM pg_prepared_statements');
      expect(plans.rows).toHaveLength(1);
      expect(plans.rows[0]).toEqual({ generic_plans: String(4 * ids.length - 5), custom_plans: '5' });
    } finally {
      await session.end();
    }
  });

  it('reads one instance with its tasks in one statement, the tasks exactly as tasksOfInstances serves them', async () => {
    for (const payloads of [false, true]) {
      const batch = await reader.tasksOfInstances(['r-1', 'r-3', 'r-2'], { payloads });
      recorded.length = 0;
      const r1 = await reader.getInstance('r-1', { payloads: false, tasks: { payloads } });
      const r3 = await reader.getInstance('r-3', { payloads: true, tasks: { payloads } });
      const r2 = await reader.getInstance('r-2', { payloads: false, tasks: { payloads } });
      expect(recorded).toHaveLength(3);
      expect(r1?.tasks).toEqual(batch.get('r-1'));
      expect(r3?.tasks).toEqual(batch.get('r-3'));
      expect(r2?.tasks).toEqual([]);
      expect(r1?.tasks?.map((t) => t.id)).toEqual(['r-1:do/0/first', 'r-1:do/1/loop', LOOP_REPEAT_ID, 'r-1:do/2/open', 'r-1:do/3/orphan']);
      expect(r1?.tasks?.[0]).toEqual({
        id: 'r-1:do/0/first', workflowInstanceId: 'r-1', taskName: 'first', taskPosition: 'do/0/first', status: 'COMPLETED',
        startDate: '2026-01-01T00:00:01.100000Z', endDate: '2026-01-01T00:00:01.200000Z', error: null,
        ...(payloads ? { inputData: '{"n": 1}', outputData: '{"n": 2}' } : {}),
      });
      const { tasks: _tasks, ...withoutTasks } = r3!;
      expect(withoutTasks).toEqual(await reader.getInstance('r-3', { payloads: true }));
    }
    expect(await reader.getInstance('p-1', { payloads: false, tasks: { payloads: false } })).toBeNull();
    expect((await reader.getInstance('r-1', { payloads: false }))?.tasks).toBeUndefined();
  });

  it('reports ingestion health through workflow_index.ingest_stats()', async () => {
    expect(await reader.ingestionStats()).toEqual({
      rawEvents: { workflow: 8, task: 12 },
      ingestErrors: 0,
      newestEventTime: '2026-01-01T00:00:07.000000Z',
      placeholderInstances: 2,
      instances: 5,
      taskExecutions: 8,
      replicationLagSeconds: null,
    });
    const stats = reader.poolStats();
    expect(stats?.waiting).toBe(0);
    expect(stats?.total).toBeGreaterThanOrEqual(1);
    expect(stats?.total).toBeLessThanOrEqual(2);
  });

  it('cannot write as the reader role, even with a read-write session', async () => {
    const readWrite = createPool({ connection: { connectionString: db.urlAs(READER_ROLE, 'test-password'), max: 1 }, queryTimeoutMs: 2000, connectTimeoutMs: 2000, readOnly: false });
    try {
      await expect(readWrite.query(`DELETE FROM workflow_index.workflow_instances`)).rejects.toMatchObject({ code: '42501' });
      await expect(readWrite.query(`INSERT INTO workflow_raw.workflow_events_raw (data) VALUES ('{}')`)).rejects.toMatchObject({ code: '42501' });
    } finally {
      await readWrite.end();
    }
    await expect(readerPool.query(`DELETE FROM workflow_index.workflow_instances`)).rejects.toMatchObject({ code: '25006' }); // read-only session
    expect((await reader.listInstances(instances(null))).map((i) => i.id)).toEqual(ALL);
  });

  it('turns a wait for a lock a schema change holds into BackendUnavailableError (lock_timeout, half the statement_timeout)', async () => {
    const blocker = await db.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE workflow_index.workflow_instances IN ACCESS EXCLUSIVE MODE');
      const started = performance.now();
      const error = await reader.listInstances(instances(null)).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(BackendUnavailableError);
      expect((error as Error).message).toContain('lock timeout');
      expect(performance.now() - started).toBeLessThan(4000);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    expect((await reader.listInstances(instances(null))).map((i) => i.id)).toEqual(ALL);
  });

  it('recovers by itself after the server terminated its sessions', async () => {
    await reader.ping(1000);
    const terminated = await db.pool.query<{ n: string }>(
      `SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'wi-reader-test'`, [db.name]);
    expect(Number(terminated.rows[0]?.n)).toBeGreaterThanOrEqual(1);
    const deadline = Date.now() + 5000;
    while (idleErrors.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(idleErrors.length).toBeGreaterThanOrEqual(1);
    expect((await reader.listInstances(instances(null))).map((i) => i.id)).toEqual(ALL);
    await reader.ping(1000);
  });

  it('fails promptly with BackendUnavailableError when the database is unreachable', async () => {
    const deadPool = createPool({ connection: { host: '127.0.0.1', port: 1, user: 'nobody', database: 'none', max: 2 }, queryTimeoutMs: 1000, connectTimeoutMs: 1000 });
    const dead = createPostgresqlReader({ pool: deadPool });
    try {
      const started = performance.now();
      await expect(dead.listInstances(instances(null))).rejects.toBeInstanceOf(BackendUnavailableError);
      await expect(dead.getInstance('r-1', { payloads: false })).rejects.toThrow(/ECONNREFUSED/);
      await expect(dead.tasksOfInstances(['r-1'], { payloads: false })).rejects.toBeInstanceOf(BackendUnavailableError);
      await expect(dead.ingestionStats()).rejects.toBeInstanceOf(BackendUnavailableError);
      await expect(dead.ping(500)).rejects.toBeInstanceOf(BackendUnavailableError);
      expect(performance.now() - started).toBeLessThan(3000);
      expect(dead.poolStats()).toEqual({ total: 0, idle: 0, waiting: 0 });
    } finally {
      await dead.close();
    }
  });

  it('bounds ping by its timeout even when no connection can be opened in time', async () => {
    // A listening socket that never answers the startup message: the connection attempt hangs.
    const sockets: Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const hanging = createPostgresqlReader({
      pool: createPool({ connection: { host: '127.0.0.1', port, user: 'x', database: 'x', max: 1 }, queryTimeoutMs: 10_000, connectTimeoutMs: 10_000 }),
    });
    try {
      const started = performance.now();
      await expect(hanging.ping(300)).rejects.toThrow('PostgreSQL did not answer within 300 ms');
      // well below the pool's 10 s connect and query timeouts, with room for a loaded machine
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      for (const s of sockets) s.destroy();
      await hanging.close().catch(() => undefined);
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe.skipIf(!available)('PostgreSQL reader: keyset pagination (after)', () => {
  let db: TestDatabase;
  let reader: Reader;
  // 36 instances: start times shared by groups of three (ties broken by id), every third without an end, names
  // from four values, every fourth without a namespace; one task each, the running ones without an end.
  const startOf = (n: number): string => `2026-02-01T00:${String(10 + Math.floor(n / 3)).padStart(2, '0')}:00.250000Z`;
  const runs: Event[] = Array.from({ length: 36 }, (_, n) => {
    const id = `k-${String((n * 7) % 36).padStart(2, '0')}`; // id order differs from start order
    const start = startOf(n);
    const end = `2026-02-01T01:${String(59 - n).padStart(2, '0')}:00Z`;
    return [
      started(id, start, { workflowName: ['b', 'a', 'c', 'a'][n % 4], ...(n % 4 === 3 ? {} : { workflowNamespace: `ns${n % 3}` }) }),
      taskEvent(id, 'started', 'do/0/step', start),
      ...(n % 3 === 2 ? [] : [taskEvent(id, 'completed', 'do/0/step', end), { instanceId: id, eventType: WF('completed'), timestamp: end, endTime: end, status: 'COMPLETED' }]),
    ];
  }).flat();

  beforeAll(async () => {
    db = await createTestDatabase({ prefix: 'wi_keyset' });
    await loadEvents(db.pool, runs, { batchSizes: [17] });
    reader = createPostgresqlReader({ pool: createPool({ connection: { connectionString: db.url, max: 2 }, queryTimeoutMs: 5000, connectTimeoutMs: 2000 }) });
  });
  afterAll(async () => {
    await reader?.close();
    await db?.drop();
  });

  const positionOf = (row: object, keys: readonly SortKey<string>[]): KeysetPosition => ({
    values: keys.map((k) => ((row as Record<string, unknown>)[k.field] as string | null | undefined) ?? null),
  });

  it('property: following the last row of each page gives the whole ordered list, for any order, filter and page size', async () => {
    const instanceKey = fc.record({ field: fc.constantFrom<SimpleInstanceSortField>('id', 'name', 'namespace', 'status', 'startDate', 'endDate', 'lastUpdate'), direction: fc.constantFrom<'ASC' | 'DESC'>('ASC', 'DESC') });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(instanceKey, { maxLength: 2, selector: (k) => k.field }),
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom<SimpleInstanceFilter | null>(null, str('status', { op: 'eq', value: 'RUNNING' }), str('namespace', { op: 'isNull', value: false })),
        async (orderBy, size, filter) => {
          const all = (await reader.listInstances(instances(filter, { orderBy, limit: 1000 }))).map((i) => i.id);
          const keys = effectiveSortKeys<string>(orderBy, DEFAULT_LIST_ORDER);
          const walked: string[] = [];
          let after: KeysetPosition | null = null;
          for (let guard = 0; guard < 100; guard++) {
            const rows = await reader.listInstances(instances(filter, { orderBy, limit: size, after }));
            walked.push(...rows.map((r) => r.id));
            if (rows.length < size) break;
            after = positionOf(rows[rows.length - 1]!, keys);
          }
          expect(walked).toEqual(all);
        },
      ),
      { numRuns: 120 },
    );
    const taskKeys = [{ field: 'endDate', direction: 'ASC' }] as const;
    const allTasks = (await reader.listTasks(tasks(null, { orderBy: [...taskKeys], limit: 1000 }))).map((t) => t.id);
    expect(allTasks).toHaveLength(36);
    const first = await reader.listTasks(tasks(null, { orderBy: [...taskKeys], limit: 30 }));
    const rest = await reader.listTasks(tasks(null, { orderBy: [...taskKeys], after: positionOf(first[29]!, effectiveSortKeys<string>([...taskKeys], DEFAULT_LIST_ORDER)) }));
    expect([...first, ...rest].map((t) => t.id)).toEqual(allTasks);
  });

  it('a cursor is stable while rows arrive: the next page starts right after the row, where offset would repeat rows', async () => {
    const keys = effectiveSortKeys<string>([], DEFAULT_LIST_ORDER);
    const before = (await reader.listInstances(instances(null, { limit: 1000 }))).map((i) => i.id);
    const page1 = await reader.listInstances(instances(null, { limit: 5 }));
    expect(page1.map((i) => i.id)).toEqual(before.slice(0, 5));
    // Two new runs arrive: one newer than all (ahead of the cursor), one older than all (behind it).
    await loadEvents(db.pool, [
      started('k-new-first', '2026-03-01T00:00:00Z', { workflowName: 'a' }),
      started('k-new-last', '2026-01-01T00:00:00Z', { workflowName: 'a' }),
    ]);
    const page2 = await reader.listInstances(instances(null, { limit: 5, after: positionOf(page1[4]!, keys) }));
    expect(page2.map((i) => i.id)).toEqual(before.slice(5, 10));
    const byOffset = await reader.listInstances(instances(null, { limit: 5, offset: 5 }));
    expect(byOffset.map((i) => i.id)).toEqual(before.slice(4, 9)); // the newer run pushed page 1's last row onto page 2
    const tail = await reader.listInstances(instances(null, { limit: 1000, after: positionOf(page2[4]!, keys) }));
    expect(tail.map((i) => i.id)).toEqual([...before.slice(10), 'k-new-last']);
  });
});
