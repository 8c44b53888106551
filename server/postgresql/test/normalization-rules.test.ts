// The normalization rules one by one, on small hand-made streams (each test uses its own instance ids).
import { expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import type { TestDatabase } from './support/test-database.js';
import { loadEvents, snapshot, type Event } from './support/load-events.js';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';
import { rawInsertStatement } from './support/raw-statement.js';

const T0 = 1778577243.5; // 2026-05-12T09:14:03.5Z
const P = 'io.serverlessworkflow.';

const wf = (id: string, action: string, t: number, extra: Event = {}): Event => ({
  eventType: `${P}workflow.${action}.v1`, instanceId: id, timestamp: t, ...extra,
});
const started = (id: string, t: number, extra: Event = {}): Event =>
  wf(id, 'started', t, { status: 'RUNNING', startTime: t, workflowName: 'wf', workflowNamespace: 'ns', workflowVersion: '1.0', ...extra });
const statusChanged = (id: string, t: number, status: string): Event => wf(id, 'status-changed', t, { status, lastUpdateTime: t });
const tk = (id: string, action: string, t: number, pos = 'do/0/step', extra: Event = {}): Event => ({
  eventType: `${P}task.${action}.v1`, instanceId: id, timestamp: t, taskName: pos.split('/').pop(), taskPosition: pos,
  taskExecutionId: '00000000-0000-3000-8000-000000000000',
  ...(action === 'started' ? { startTime: t, status: 'RUNNING' } : {}),
  ...(action === 'completed' ? { endTime: t, status: 'COMPLETED' } : {}),
  ...(action === 'faulted' ? { endTime: t, status: 'FAILED' } : {}),
  ...(action === 'cancelled' ? { endTime: t, status: 'CANCELLED' } : {}),
  ...(action === 'suspended' ? { status: 'SUSPENDED' } : {}),
  ...(action === 'resumed' ? { status: 'RUNNING' } : {}),
  ...extra,
});
const iso = (t: number): string => new Date(Math.round(t * 1000)).toISOString().replace(/\.(\d{3})Z$/, (_m, ms: string) => `.${ms}000Z`);

describePostgres('normalization rules (real PostgreSQL)', () => {
  let db: TestDatabase;
  it.beforeAll(async ({ database }) => {
    db = database;
  });

  const instance = async (id: string) => (await snapshot(db.pool, [id])).instances[0];
  const tasksOf = async (id: string) => (await snapshot(db.pool, [id])).tasks;

  it('a late RUNNING never replaces a terminal status; endDate stays', async () => {
    await loadEvents(db.pool, [started('R1', T0), wf('R1', 'completed', T0 + 2, { status: 'COMPLETED', endTime: T0 + 2 }), statusChanged('R1', T0 + 5, 'RUNNING')]);
    expect(await instance('R1')).toMatchObject({ status: 'COMPLETED', end_time: iso(T0 + 2), last_update: iso(T0 + 5) });
  });

  it('the newest terminal event wins over an older one; non-terminal statuses: the newest event wins', async () => {
    await loadEvents(db.pool, [started('R2', T0), statusChanged('R2', T0 + 1, 'COMPLETED'), wf('R2', 'cancelled', T0 + 3, { status: 'CANCELLED', endTime: T0 + 3 })]);
    expect(await instance('R2')).toMatchObject({ status: 'CANCELLED', end_time: iso(T0 + 3) });
    await loadEvents(db.pool, [statusChanged('R3', T0 + 2, 'SUSPENDED'), started('R3', T0), wf('R3', 'suspended', T0 + 2.1, { status: 'SUSPENDED' })]);
    expect(await instance('R3')).toMatchObject({ status: 'SUSPENDED', end_time: null });
    await loadEvents(db.pool, [wf('R3', 'resumed', T0 + 4, { status: 'RUNNING' })]);
    expect(await instance('R3')).toMatchObject({ status: 'RUNNING', end_time: null, last_update: iso(T0 + 4) });
  });

  it('statuses outside the enum that mean "not finished" are RUNNING', async () => {
    await loadEvents(db.pool, [started('R4', T0), statusChanged('R4', T0 + 1, 'WAITING')]);
    expect(await instance('R4')).toMatchObject({ status: 'RUNNING' });
  });

  it('status-changed or task events first make a placeholder; workflow.started fills identity later', async () => {
    await loadEvents(db.pool, [statusChanged('R5', T0, 'RUNNING'), tk('R5', 'started', T0 + 0.1)]);
    expect(await instance('R5')).toMatchObject({ placeholder: true, name: null, status: 'RUNNING' });
    await loadEvents(db.pool, [tk('R6', 'started', T0)]);
    expect(await instance('R6')).toMatchObject({ placeholder: true, name: null, status: 'RUNNING', last_update: null });
    expect(await tasksOf('R6')).toHaveLength(1); // stored, served once the instance is known
    await loadEvents(db.pool, [started('R5', T0 + 0.01)]);
    expect(await instance('R5')).toMatchObject({ placeholder: false, name: 'wf', namespace: 'ns', version: '1.0', start_time: iso(T0 + 0.01), status: 'RUNNING' });
    const stats = await db.pool.query('SELECT placeholder_instances::int AS n FROM workflow_index.ingest_stats()');
    expect(stats.rows[0].n).toBeGreaterThanOrEqual(1); // R6 at least
  });

  it('completed before started (out of order) pairs into one execution, not two', async () => {
    await loadEvents(db.pool, [started('R7', T0), tk('R7', 'completed', T0 + 2)]);
    expect((await tasksOf('R7')).map((t) => [t.id, t.status, t.start_time, t.end_time])).toEqual([['R7:do/0/step', 'COMPLETED', null, iso(T0 + 2)]]);
    await loadEvents(db.pool, [tk('R7', 'started', T0 + 1)]);
    expect((await tasksOf('R7')).map((t) => [t.id, t.status, t.start_time, t.end_time])).toEqual([['R7:do/0/step', 'COMPLETED', iso(T0 + 1), iso(T0 + 2)]]);
  });

  it('a loop whose events arrive in the worst order still pairs each iteration with its own completion', async () => {
    // s1 c1 s2 c2 arriving as s1, c2, s2, c1: a greedy incremental pairing would produce (s1,c2),(s2,-),(-,c1).
    const s1 = tk('R8', 'started', T0 + 1), c1 = tk('R8', 'completed', T0 + 2), s2 = tk('R8', 'started', T0 + 3), c2 = tk('R8', 'completed', T0 + 4);
    await loadEvents(db.pool, [started('R8', T0), s1, c2, s2, c1], { batchSizes: [1] });
    expect((await tasksOf('R8')).map((t) => [t.id, t.start_time, t.end_time, t.execution_index])).toEqual([
      ['R8:do/0/step', iso(T0 + 1), iso(T0 + 2), 1],
      [`R8:do/0/step@${Math.round((T0 + 3) * 1e6)}`, iso(T0 + 3), iso(T0 + 4), 2],
    ]);
  });

  it('task cancelled, retried without a new started, suspended and resumed', async () => {
    await loadEvents(db.pool, [
      started('R9', T0),
      tk('R9', 'started', T0 + 1, 'do/0/a'), tk('R9', 'cancelled', T0 + 2, 'do/0/a'),
      tk('R9', 'started', T0 + 1, 'do/1/b'), tk('R9', 'faulted', T0 + 2, 'do/1/b', { error: { type: 'x', status: 503, instance: 'do/1/b', title: 'down', detail: null } }),
      tk('R9', 'retried', T0 + 3, 'do/1/b'), tk('R9', 'completed', T0 + 4, 'do/1/b'),
      tk('R9', 'started', T0 + 1, 'do/2/c'), tk('R9', 'suspended', T0 + 2, 'do/2/c'),
      tk('R9', 'started', T0 + 1, 'do/3/d'), tk('R9', 'suspended', T0 + 2, 'do/3/d'), tk('R9', 'resumed', T0 + 3, 'do/3/d'),
    ]);
    expect((await tasksOf('R9')).map((t) => [t.id, t.status, t.error_status])).toEqual([
      ['R9:do/0/a', 'CANCELLED', null],
      ['R9:do/1/b', 'FAULTED', 503],
      [`R9:do/1/b@${Math.round((T0 + 3) * 1e6)}`, 'COMPLETED', null],
      ['R9:do/2/c', 'SUSPENDED', null],
      ['R9:do/3/d', 'RUNNING', null],
    ]);
  });

  it('millisecond ties are resolved from the events alone: a completion closes the iteration already open, then a start of the same instant opens the next', async () => {
    // timestamp-format=epoch-millis: the loop's iterations share milliseconds with each other (the real 300-item
    // loop did so 107 times). Iteration items differ, so every line is a different event; the record times of the
    // deliveries differ wildly and must not matter.
    const ms = 1778577243512;
    const it = (action: string, t: number, item: number): Event =>
      tk('R18', action, t, 'do/0/loop/do/0/step', action === 'started' ? { input: { item } } : { output: { item, done: true } });
    // .504 start 1; .512 completion 1 and start 2 (one closing, one opening); .513 completion 2; .515 start and
    // completion 3 (a fast task within one millisecond).
    const events = [it('started', ms - 8, 1), it('completed', ms, 1), it('started', ms, 2), it('completed', ms + 1, 2), it('started', ms + 3, 3), it('completed', ms + 3, 3)];
    await loadEvents(db.pool, [started('R18', T0)]);
    const expected = [
      [1, 'COMPLETED', '2026-05-12T09:14:03.504000Z', '2026-05-12T09:14:03.512000Z', 1, 1],
      [2, 'COMPLETED', '2026-05-12T09:14:03.512000Z', '2026-05-12T09:14:03.513000Z', 2, 2],
      [3, 'COMPLETED', '2026-05-12T09:14:03.515000Z', '2026-05-12T09:14:03.515000Z', 3, 3],
    ];
    const served = async () => (await tasksOf('R18')).map((t) => [t.execution_index, t.status, t.start_time, t.end_time,
      (t.input as { item: number }).item, (t.output as { item: number }).item]);
    for (const [k, i] of [3, 0, 5, 1, 4, 2].entries()) {
      await db.pool.query(fluentBitInsertStatement('workflow_raw.task_events_raw', 'workflow.task', [events[i]!], () => ms / 1000 + k));
    }
    expect(await served()).toEqual(expected);
    // The same lines again, with other record times and forwarder metadata, in another order: nothing changes.
    await db.pool.query(fluentBitInsertStatement('workflow_raw.task_events_raw', 'workflow.task',
      [...events].reverse().map((e) => ({ ...e, stream: 'stdout', _p: 'F', kubernetes: { pod_name: 'other' } })), () => 1e9));
    expect(await served()).toEqual(expected);
  });

  it('at an instant with several completions and starts, the executions’ times are exact and the pairing is fixed by content, whatever the arrival', async () => {
    // One iteration completes, the next starts and completes within the same millisecond: which completion closes
    // the execution that was already open cannot be read from the events; the times are exact either way and the
    // choice is the same for every arrival order and re-delivery.
    const ms = 1778577243512;
    const it = (action: string, t: number, item: number): Event =>
      tk('R20', action, t, 'do/0/loop/do/0/step', action === 'started' ? { input: { item } } : { output: { item } });
    const events = [it('started', ms - 8, 1), it('completed', ms, 1), it('started', ms, 2), it('completed', ms, 2)];
    const results: unknown[] = [];
    for (const [n, order] of [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]].entries()) {
      const id = `R20-${n}`;
      await loadEvents(db.pool, [started(id, T0), ...order.map((i) => ({ ...events[i]!, instanceId: id }))], { batchSizes: [1, 2] });
      results.push((await tasksOf(id)).map((t) => [t.start_time, t.end_time, t.input, t.output]));
    }
    const times = (results[0] as unknown[][]).map((r) => r.slice(0, 2));
    expect(times).toEqual([
      ['2026-05-12T09:14:03.504000Z', '2026-05-12T09:14:03.512000Z'],
      ['2026-05-12T09:14:03.512000Z', '2026-05-12T09:14:03.512000Z'],
    ]);
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });

  it('the same task event printed exactly and as Fluent Bit re-prints its numbers is one event, served as first delivered; a different number is another', async () => {
    // Fluent Bit holds numbers as doubles and prints them with %.16g, integral ones as x.0: 17-digit doubles lose a
    // digit, `1.0E7` becomes `10000000.0`. A backfill of the exact lines over a Fluent Bit delivery adds nothing, and
    // the served payload is the first delivery's, never switched by a later spelling.
    const line = (id: string, price: string, big: string, t: string) =>
      `{"eventType":"io.serverlessworkflow.task.completed.v1","instanceId":"${id}","timestamp":${t},"endTime":${t},"taskName":"step","taskPosition":"do/0/step","status":"COMPLETED","output":{"price":${price},"big":${big},"ratio":1.50}}`;
    const send = (id: string, price: string, big: string, t: string, recordTime: string) => db.pool.query(rawInsertStatement(
      'workflow_raw.task_events_raw', 'workflow.task', [{ line: line(id, price, big, t), recordTime }]));
    const fluentBit = ['0.3', '10000000.0', '1795441523.05107'] as const;
    const exact = ['0.30000000000000004', '1.0E7', '1.7954415230510702E9'] as const;
    // Fluent Bit's delivery first, then the exact line: one execution, served as Fluent Bit delivered it (the
    // producer's last digit was lost before we saw it).
    await loadEvents(db.pool, [started('R21', T0)]);
    await send('R21', ...fluentBit, '1795441599.5');
    await send('R21', ...exact, '1795441523.05107');
    expect((await tasksOf('R21')).map((t) => [t.end_time, t.output])).toEqual([
      ['2026-11-23T13:45:23.051070Z', { price: 0.3, big: 10000000, ratio: 1.5 }],
    ]);
    // The exact line first (init-job ingest), then Fluent Bit's: the producer's digits are served and stay.
    await loadEvents(db.pool, [started('R21b', T0)]);
    await send('R21b', ...exact, '1795441523.05107');
    await send('R21b', ...fluentBit, '1795441601.5');
    expect((await tasksOf('R21b')).map((t) => [t.end_time, t.output])).toEqual([
      ['2026-11-23T13:45:23.051070Z', { price: 0.30000000000000004, big: 10000000, ratio: 1.5 }],
    ]);
    await send('R21', '0.31', '1.0E7', '1.7954415230510702E9', '1795441523.05107');  // a different completion at that instant
    expect(await tasksOf('R21')).toHaveLength(2);
  });

  it('two byte-identical lines of a millisecond producer are one event (nothing tells them apart)', async () => {
    const ms = 1778577243512;
    const lines = [tk('R19', 'started', ms), tk('R19', 'completed', ms), tk('R19', 'started', ms), tk('R19', 'completed', ms), tk('R19', 'started', ms + 1), tk('R19', 'completed', ms + 1)];
    await loadEvents(db.pool, [started('R19', T0), ...lines]);
    expect((await tasksOf('R19')).map((t) => [t.execution_index, t.start_time, t.end_time])).toEqual([
      [1, '2026-05-12T09:14:03.512000Z', '2026-05-12T09:14:03.512000Z'],
      [2, '2026-05-12T09:14:03.513000Z', '2026-05-12T09:14:03.513000Z'],
    ]);
  });

  it('a task event written to the workflow table (mis-routed) is still normalized as a task', async () => {
    await db.pool.query(`INSERT INTO workflow_raw.workflow_events_raw (tag, time, data) VALUES ('x', now(), $1)`, [JSON.stringify(tk('R10', 'started', T0))]);
    expect((await tasksOf('R10')).map((t) => t.id)).toEqual(['R10:do/0/step']);
  });

  it('a future producer prefix is accepted by the eventType suffix', async () => {
    await loadEvents(db.pool, [{ ...started('R11', T0), eventType: 'org.openworkflow.workflow.started.v1' }]);
    expect(await instance('R11')).toMatchObject({ name: 'wf', status: 'RUNNING' });
  });

  it('payloads survive byte-for-byte as JSON: > 16 KiB, unicode, escapes, truncation object, scalars, JSON null', async () => {
    const big = { text: 'ä€😀"\\\n\t'.repeat(3000), nested: { list: Array.from({ length: 200 }, (_, i) => ({ i, v: `π${i}`, f: i + 0.25 })) }, zero: 0, exp: 1.5e300 };
    expect(JSON.stringify(big).length).toBeGreaterThan(16 * 1024);
    const truncated = { __truncated__: true, __preview__: '{"orderId":"ORD-1","items":[{"sku":"A', __originalSize__: 48213 };
    await loadEvents(db.pool, [
      started('R12', T0, { input: big }),
      wf('R12', 'completed', T0 + 1, { status: 'COMPLETED', endTime: T0 + 1, output: truncated }),
      started('R13', T0, { input: 'SomeObject@1a2b3c' }), wf('R13', 'completed', T0 + 1, { status: 'COMPLETED', output: null }),
      started('R14', T0, { input: [1, 'two', null, true] }), wf('R14', 'completed', T0 + 1, { status: 'COMPLETED', output: 42 }),
    ]);
    const rows = await db.pool.query<{ id: string; input: string | null; output: string | null }>(
      `SELECT id, input::text AS input, output::text AS output FROM workflow_index.workflow_instances WHERE id IN ('R12','R13','R14') ORDER BY id`);
    expect(rows.rows.map((r) => [r.id, r.input === null ? null : JSON.parse(r.input), r.output === null ? null : JSON.parse(r.output)])).toEqual([
      ['R12', big, truncated],
      ['R13', 'SomeObject@1a2b3c', null],
      ['R14', [1, 'two', null, true], 42],
    ]);
  });

  it('timestamps: microseconds kept and rounded half-to-even beyond them', async () => {
    await loadEvents(db.pool, [
      started('R15', '1778577243.0000005' as unknown as number), // exactly half a microsecond above .000000 → even: .000000
      started('R16', '1778577243.0000015' as unknown as number), // half above .000001 → even: .000002
      started('R17', '2026-05-12T11:14:03.1234565+02:00' as unknown as number),
    ]);
    const s = await snapshot(db.pool, ['R15', 'R16', 'R17']);
    // Numeric strings are exact decimals (a JSON number would first be rounded to a double by the producer).
    expect(s.instances.map((r) => r.start_time)).toEqual(['2026-05-12T09:14:03.000000Z', '2026-05-12T09:14:03.000002Z', '2026-05-12T09:14:03.123456Z']);
  });
});
