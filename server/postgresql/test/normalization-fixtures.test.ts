// The reference stream, written the way Fluent Bit writes it, gives exactly the rows its events imply.
import { expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import type { TestDatabase } from './support/test-database.js';
import { loadEvents, snapshot } from './support/load-events.js';
import { fixtureEvents } from '@workflow-index/testkit';

const events = fixtureEvents();

/** The payload field of the one event matching instance suffix, event type suffix and (optional) position. */
function payload(instanceSuffix: string, type: string, field: 'input' | 'output' | 'error', position?: string): unknown {
  const matches = events.filter((e) => String(e['instanceId']).endsWith(instanceSuffix)
    && String(e['eventType']).endsWith(`.${type}.v1`)
    && (position === undefined || e['taskPosition'] === position));
  expect(matches, `${instanceSuffix} ${type} ${position ?? ''}`).toHaveLength(1);
  const value = matches[0]![field];
  expect(value, `${instanceSuffix} ${type} ${field}`).toBeDefined();
  return value;
}

const day = '2026-05-12T';
const instances = [
  // id, namespace, name, version, status, start, end (= lastUpdate for all of these)
  ['01KRDQDZBR7492YQWM736PEENJ', 'com.acme.orders', 'order-intake', '1.0.0', 'COMPLETED', '09:14:03.512378', '09:14:03.515950'],
  ['01KRDQDZBS8TBDWA72Q1575QHY', 'com.acme.billing', 'payment-capture', '2.1.0', 'FAULTED', '09:14:03.513248', '09:14:08.519678'],
  ['01KRDQE6KHQGTG2RA2Q0X3ED0J', 'com.acme.orders', 'order-intake', '1.0.0', 'CANCELLED', '09:14:10.929777', '09:14:11.021757'],
  ['01KRDQE6KKA9476X0RVHQ1S7AE', 'com.acme.orders', 'customer-notify', '1.0.0', 'COMPLETED', '09:14:10.931969', '09:14:11.228517'],
  ['01KRDQEAPWDTERF1SDDX5A5SQV', 'com.acme.orders', 'order-fulfilment', '1.3.0', 'COMPLETED', '09:14:15.132682', '09:14:15.155854'],
  ['01KRDQEBYPFN9AZM0BE5K9B295', 'com.acme.billing', 'ledger-sync', '3.0.0-rc.1', 'COMPLETED', '09:14:16.406220', '09:14:18.487834'],
  ['01KRDQEES4VBNTZWX89D86KWZJ', 'com.acme.orders', 'address-normalizer', '0.9.1', 'FAULTED', '09:14:19.300321', '09:14:19.302802'],
  ['01KRDQEHBQF7VKFR571KEFRHM5', 'com.acme.orders', 'manual-review', '1.2.0', 'COMPLETED', '09:14:21.943757', '09:15:09.454091'],
] as const;

const tasks = [
  // id, name, status, start, end
  ['01KRDQDZBR7492YQWM736PEENJ:do/0/validateOrder', 'validateOrder', 'COMPLETED', '09:14:03.512566', '09:14:03.512663'],
  ['01KRDQDZBR7492YQWM736PEENJ:do/1/reserveStock', 'reserveStock', 'COMPLETED', '09:14:03.512698', '09:14:03.515233'],
  ['01KRDQDZBS8TBDWA72Q1575QHY:do/0/loadInvoice', 'loadInvoice', 'COMPLETED', '09:14:03.513399', '09:14:03.515700'],
  ['01KRDQDZBS8TBDWA72Q1575QHY:do/1/chargeCard', 'chargeCard', 'FAULTED', '09:14:03.516046', '09:14:08.519458'],
  ['01KRDQE6KHQGTG2RA2Q0X3ED0J:do/0/validateOrder', 'validateOrder', 'COMPLETED', '09:14:10.929980', '09:14:10.931141'],
  ['01KRDQE6KHQGTG2RA2Q0X3ED0J:do/1/reserveStock', 'reserveStock', 'CANCELLED', '09:14:10.931199', '09:14:11.022169'],
  ['01KRDQE6KKA9476X0RVHQ1S7AE:do/0/notifyAll/branch', 'notifyAll', 'COMPLETED', '09:14:10.932091', '09:14:11.227936'],
  ['01KRDQE6KKA9476X0RVHQ1S7AE:do/0/notifyAll/branch/0/emailCustomer', 'emailCustomer', 'COMPLETED', '09:14:10.933518', '09:14:11.227679'],
  ['01KRDQE6KKA9476X0RVHQ1S7AE:do/0/notifyAll/branch/1/smsCustomer', 'smsCustomer', 'COMPLETED', '09:14:10.933501', '09:14:11.083699'],
  ['01KRDQE6KKA9476X0RVHQ1S7AE:do/1/markNotified', 'markNotified', 'COMPLETED', '09:14:11.228000', '09:14:11.228402'],
  ['01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do', 'pickItems', 'COMPLETED', '09:14:15.132858', '09:14:15.155749'],
  ['01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem', 'pickItem', 'COMPLETED', '09:14:15.132949', '09:14:15.133182'],
  ['01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem@1778577255133240', 'pickItem', 'COMPLETED', '09:14:15.133240', '09:14:15.146110'],
  ['01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem@1778577255146168', 'pickItem', 'COMPLETED', '09:14:15.146168', '09:14:15.155609'],
  ['01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try', 'syncLedger', 'COMPLETED', '09:14:16.406360', '09:14:18.487737'],
  ['01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries', 'postEntries', 'FAULTED', '09:14:16.406437', '09:14:16.445052'],
  ['01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries@1778577258446396', 'postEntries', 'COMPLETED', '09:14:18.446396', '09:14:18.487604'],
  ['01KRDQEES4VBNTZWX89D86KWZJ:do/0/normalizeAddress', 'normalizeAddress', 'FAULTED', '09:14:19.300484', '09:14:19.302601'],
  ['01KRDQEHBQF7VKFR571KEFRHM5:do/0/scoreRisk', 'scoreRisk', 'COMPLETED', '09:14:21.943915', '09:14:21.951370'],
  ['01KRDQEHBQF7VKFR571KEFRHM5:do/1/notifyReviewer', 'notifyReviewer', 'COMPLETED', '09:14:21.951431', '09:14:22.066875'],
  ['01KRDQEHBQF7VKFR571KEFRHM5:do/2/recordDecision', 'recordDecision', 'COMPLETED', '09:15:09.384881', '09:15:09.449973'],
  ['01KRDQEHBQF7VKFR571KEFRHM5:do/3/publishResult', 'publishResult', 'COMPLETED', '09:15:09.450101', '09:15:09.453978'],
] as const;

describePostgres('normalization of the reference stream (real PostgreSQL)', () => {
  let db: TestDatabase;
  let state: Awaited<ReturnType<typeof snapshot>>;
  it.beforeAll(async ({ database }) => {
    db = database;
    await loadEvents(db.pool, events, { batchSizes: [25] });
    state = await snapshot(db.pool);
  });

  it('stores every event in the raw tables and rejects none', async () => {
    const raw = await db.pool.query(`SELECT (SELECT count(*) FROM workflow_raw.workflow_events_raw)::int AS w, (SELECT count(*) FROM workflow_raw.task_events_raw)::int AS t, (SELECT count(*) FROM workflow_index.ingest_errors)::int AS e`);
    expect(raw.rows[0]).toEqual({ w: 36, t: 44, e: 0 });
  });

  it('gives one row per instance with identity, status and times', () => {
    expect(state.instances.map((r) => [r.id, r.namespace, r.name, r.version, r.status, r.start_time, r.end_time, r.last_update, r.placeholder]))
      .toEqual(instances.map(([id, ns, name, version, status, start, end]) => [id, ns, name, version, status, `${day}${start}Z`, `${day}${end}Z`, `${day}${end}Z`, false]));
  });

  it('keeps workflow payloads as the events carried them (unicode, quotes, newlines)', () => {
    const byId = new Map(state.instances.map((r) => [r.id, r]));
    expect(byId.get('01KRDQDZBR7492YQWM736PEENJ')?.input).toEqual(payload('PEENJ', 'workflow.started', 'input'));
    expect(byId.get('01KRDQDZBR7492YQWM736PEENJ')?.output).toEqual(payload('PEENJ', 'workflow.completed', 'output'));
    expect(byId.get('01KRDQDZBS8TBDWA72Q1575QHY')?.output).toBeNull();
    expect(byId.get('01KRDQEHBQF7VKFR571KEFRHM5')?.output).toEqual(payload('EFRHM5', 'workflow.completed', 'output'));
    for (const row of state.instances) {
      expect(row.input, row.id).toEqual(payload(row.id.slice(-6), 'workflow.started', 'input'));
    }
  });

  it('records the error of faulted instances, including a null error.instance', () => {
    const byId = new Map(state.instances.map((r) => [r.id, r]));
    const http = payload('575QHY', 'workflow.faulted', 'error') as Record<string, unknown>;
    expect(byId.get('01KRDQDZBS8TBDWA72Q1575QHY')).toMatchObject({
      error_type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', error_title: 'Service Unavailable',
      error_status: 503, error_instance: 'do/1/chargeCard', error_detail: http['detail'],
    });
    const java = payload('86KWZJ', 'workflow.faulted', 'error') as Record<string, unknown>;
    expect(byId.get('01KRDQEES4VBNTZWX89D86KWZJ')).toMatchObject({
      error_type: 'java.lang.IllegalArgumentException', error_title: 'Postal code must not be blank for country "US"',
      error_status: 500, error_instance: null, error_detail: java['detail'],
    });
    expect(String(java['detail'])).toMatch(/^java\.lang\.IllegalArgumentException: Postal code/);
    for (const row of state.instances.filter((r) => r.status !== 'FAULTED')) {
      expect([row.error_type, row.error_title, row.error_detail, row.error_status, row.error_instance], row.id).toEqual([null, null, null, null, null]);
    }
  });

  it('gives one row per task execution: loop iterations and retry attempts separate, FAILED stored as FAULTED', () => {
    expect(state.tasks.map((r) => [r.id, r.task_name, r.status, r.start_time, r.end_time]))
      .toEqual(tasks.map(([id, name, status, start, end]) => [id, name, status, `${day}${start}Z`, `${day}${end}Z`]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)));
    const loop = state.tasks.filter((r) => r.task_position === 'do/0/pickItems/do/0/pickItem');
    expect(loop.map((r) => r.execution_index).sort()).toEqual([1, 2, 3]);
  });

  it('keeps task payloads and errors on the execution they belong to', () => {
    const byId = new Map(state.tasks.map((r) => [r.id, r]));
    const q = '01KRDQDZBS8TBDWA72Q1575QHY';
    expect(byId.get(`${q}:do/0/loadInvoice`)?.input).toEqual(payload('575QHY', 'task.started', 'input', 'do/0/loadInvoice'));
    expect(byId.get(`${q}:do/0/loadInvoice`)?.output).toEqual(payload('575QHY', 'task.completed', 'output', 'do/0/loadInvoice'));
    expect(byId.get(`${q}:do/1/chargeCard`)).toMatchObject({ error_status: 503, error_instance: 'do/1/chargeCard', error_title: 'Service Unavailable', output: null });
    expect(byId.get(`${q}:do/1/chargeCard`)?.input).toEqual(payload('575QHY', 'task.started', 'input', 'do/1/chargeCard'));
    const r = '01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries';
    expect(byId.get(r)).toMatchObject({ status: 'FAULTED', error_status: 500, error_instance: 'do/0/syncLedger/try/0/postEntries', output: null });
    expect(byId.get(`${r}@1778577258446396`)).toMatchObject({ status: 'COMPLETED', error_status: null, input: null });
    expect(byId.get(`${r}@1778577258446396`)?.output).toEqual(payload('K9B295', 'task.completed', 'output', 'do/0/syncLedger/try/0/postEntries'));
    // The Java fault: input only on the faulted event (task payloads off), error.instance is the position.
    expect(byId.get('01KRDQEES4VBNTZWX89D86KWZJ:do/0/normalizeAddress')).toMatchObject({ status: 'FAULTED', error_type: 'java.lang.IllegalArgumentException', error_instance: 'do/0/normalizeAddress' });
    expect(byId.get('01KRDQEES4VBNTZWX89D86KWZJ:do/0/normalizeAddress')?.input).toEqual(payload('86KWZJ', 'task.faulted', 'input', 'do/0/normalizeAddress'));
    // Task payloads off for com.acme.orders: no payloads on ordinary executions.
    expect(byId.get('01KRDQDZBR7492YQWM736PEENJ:do/0/validateOrder')).toMatchObject({ input: null, output: null });
  });

  it('reports ingestion health through ingest_stats()', async () => {
    const stats = await db.pool.query(`SELECT * FROM workflow_index.ingest_stats()`);
    expect(stats.rows[0]).toMatchObject({ workflow_raw_events: '36', task_raw_events: '44', ingest_errors: '0', placeholder_instances: '0', instances: '8', task_executions: '22' });
  });
});
