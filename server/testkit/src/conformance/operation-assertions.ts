// Every query operation and every field, with the exact values of every instance and task execution.
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import {
  ALL_INSTANCES,
  ALL_TASKS,
  EXTRA_INSTANCES,
  EXTRA_TASKS,
  FIXTURE_INSTANCES,
  FIXTURE_TASKS,
  ID,
  PAGING_INSTANCES,
  PAGING_TASKS,
  instanceById,
  tasksOf,
} from './expected-data.js';
import { ids, sortInstances, sortTasks } from './expected-order.js';
import { INSTANCE_FIELDS, TASK_FIELDS, idsOf, parsed, rowsOf } from './served.js';

const withTasks = (instanceId: string) => ({ ...instanceById(instanceId), taskExecutions: tasksOf(instanceId) });

export function describeOperations(client: GraphQLClient): void {
  describe('getWorkflowInstance', () => {
    const instanceQuery = `query ($id: ID!) { getWorkflowInstance(id: $id) { ${INSTANCE_FIELDS} taskExecutions { ${TASK_FIELDS} } } }`;

    for (const expected of [...FIXTURE_INSTANCES, ...EXTRA_INSTANCES, PAGING_INSTANCES[0]!, PAGING_INSTANCES[104]!]) {
      it(`serves ${expected.id} (${expected.name}, ${expected.status}) with every field and its task executions in chronological order`, async () => {
        const data = await client.data(instanceQuery, { id: expected.id });
        const served = data['getWorkflowInstance'] as Record<string, unknown>;
        expect(parsed(served)).toEqual(withTasks(expected.id));
      });
    }

    it('answers null for an unknown id, without an error', async () => {
      const result = await client.send('{ getWorkflowInstance(id: "no-such-instance") { id } }');
      expect(result.errors).toEqual([]);
      expect(result.data).toEqual({ getWorkflowInstance: null });
    });

    it('serves payloads as JSON text, parsed once, with exact unicode, quotes and newlines', async () => {
      const data = await client.data(`{ getWorkflowInstance(id: "${ID.orderIntake}") { inputData outputData } }`);
      const served = data['getWorkflowInstance'] as { inputData: string; outputData: string };
      expect(typeof served.inputData).toBe('string');
      const input = JSON.parse(served.inputData) as {
        customer: { name: string; tags: string[] };
        items: { title: string }[];
        shipTo: { city: string };
        giftNote: string;
      };
      expect(input.customer.name).toBe('José Álvarez');
      expect(input.customer.tags).toEqual(['vip', 'früh']);
      expect(input.items.map((i) => i.title)).toEqual(['Der "Zauberberg"', '東京 City Guide 📦']);
      expect(input.shipTo.city).toBe('São Paulo');
      expect(input.giftNote).toBe('Feliz aniversário!\nCom carinho — "Tia Bia"');
      expect((JSON.parse(served.outputData) as { message: string }).message).toBe('Reserva confirmada ✅');
    });

    it('serves payloads that are not objects (an array input, a string output) as their JSON text', async () => {
      const data = await client.data(`{ getWorkflowInstance(id: "${ID.jsonArrayRoot}") { inputData outputData } }`);
      const served = data['getWorkflowInstance'] as { inputData: string; outputData: string };
      expect(JSON.parse(served.inputData)).toEqual([1, 'two', { three: 3 }]);
      expect(JSON.parse(served.outputData)).toBe('plain text ünïcode ✓ "quoted"');
    });

    it('serves a JSON null payload and an absent payload as null', async () => {
      const data = await client.data(
        `{ late: getWorkflowInstance(id: "${ID.lateRunning}") { outputData } absent: getWorkflowInstance(id: "${ID.fullwidth}") { inputData outputData } }`,
      );
      expect(data).toEqual({ late: { outputData: null }, absent: { inputData: null, outputData: null } });
    });

    it('serves error objects with status as an Int and a null instance as null', async () => {
      const data = await client.data(
        `{ java: getWorkflowInstance(id: "${ID.addressNormalizer}") { status error { type status instance title } }
           http: getWorkflowInstance(id: "${ID.paymentCapture}") { status error { type status instance title } }
           ok: getWorkflowInstance(id: "${ID.orderIntake}") { status error { type } } }`,
      );
      expect(data).toEqual({
        java: {
          status: 'FAULTED',
          error: { type: 'java.lang.IllegalArgumentException', status: 500, instance: null, title: 'Postal code must not be blank for country "US"' },
        },
        http: {
          status: 'FAULTED',
          error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', status: 503, instance: 'do/1/chargeCard', title: 'Service Unavailable' },
        },
        ok: { status: 'COMPLETED', error: null },
      });
    });

    it('applies the status rules: WAITING is RUNNING, a late RUNNING does not undo COMPLETED, SUSPENDED stays', async () => {
      const data = await client.data(
        `{ waiting: getWorkflowInstance(id: "${ID.waiting}") { status endDate lastUpdate }
           late: getWorkflowInstance(id: "${ID.lateRunning}") { status endDate lastUpdate }
           suspended: getWorkflowInstance(id: "${ID.suspended}") { status endDate lastUpdate }
           cancelled: getWorkflowInstance(id: "${ID.orderCancelled}") { status endDate lastUpdate } }`,
      );
      expect(data).toEqual({
        waiting: { status: 'RUNNING', endDate: null, lastUpdate: '2026-05-13T08:00:00.0004Z' },
        late: { status: 'COMPLETED', endDate: '2026-05-13T09:00:00.6Z', lastUpdate: '2026-05-13T09:00:05.7Z' }, // '2026-05-13T11:00:05.7+02:00'
        suspended: { status: 'SUSPENDED', endDate: null, lastUpdate: '2026-05-13T11:00:00.060001Z' }, // '2026-05-13T11:00:00.060001Z'
        cancelled: { status: 'CANCELLED', endDate: '2026-05-12T09:14:11.021757Z', lastUpdate: '2026-05-12T09:14:11.021757Z' },
      });
    });

    it('reads every timestamp input form and serves UTC with microseconds, trailing zeros trimmed', async () => {
      const data = await client.data(
        `{ getWorkflowInstance(id: "${ID.timeForms}") { startDate endDate lastUpdate taskExecutions { id startDate endDate } } }`,
      );
      expect(data['getWorkflowInstance']).toEqual({
        startDate: '2026-05-13T10:00:00.000001Z', // "1.778666400000001E9" (scientific-notation seconds)
        endDate: '2026-05-13T10:00:01.999999Z', // "2026-05-13T10:00:01.999999Z"
        lastUpdate: '2026-05-13T10:00:02Z', // 1778666402000 (epoch ms): no fraction
        taskExecutions: [
          // "2026-05-13T05:00:00.5-05:00" and 1778666401100000 (epoch µs)
          { id: `${ID.timeForms}:do/0/stamp`, startDate: '2026-05-13T10:00:00.5Z', endDate: '2026-05-13T10:00:01.1Z' },
          // "1778666401200000500" and "1778666401300001500" (epoch ns, half to even)
          { id: `${ID.timeForms}:do/1/stampAgain`, startDate: '2026-05-13T10:00:01.2Z', endDate: '2026-05-13T10:00:01.300002Z' },
        ],
      });
      const others = await client.data(
        `{ offset: getWorkflowInstance(id: "${ID.faulted404}") { endDate }
           plus: getWorkflowInstance(id: "${ID.lateRunning}") { lastUpdate }
           zeros: getWorkflowInstance(id: "${ID.waiting}") { startDate }
           micro: getWorkflowInstance(id: "${ID.suspended}") { lastUpdate } }`,
      );
      expect(others).toEqual({
        offset: { endDate: '2026-05-13T15:00:00.6Z' }, // "2026-05-14T00:00:00.6+09:00": the previous UTC day
        plus: { lastUpdate: '2026-05-13T09:00:05.7Z' }, // "2026-05-13T11:00:05.7+02:00"
        zeros: { startDate: '2026-05-13T08:00:00.0002Z' }, // "2026-05-13T08:00:00.000200Z"
        micro: { lastUpdate: '2026-05-13T11:00:00.060001Z' }, // "2026-05-13T11:00:00.060001Z"
      });
    });
  });

  describe('getWorkflowInstances', () => {
    it('serves every instance with every field and nested task executions on one page (default order startDate DESC, id)', async () => {
      const data = await client.data(`{ getWorkflowInstances(limit: 1000) { ${INSTANCE_FIELDS} taskExecutions { ${TASK_FIELDS} } } }`);
      const served = rowsOf(data, 'getWorkflowInstances').map(parsed);
      const expected = sortInstances(ALL_INSTANCES, [['startDate', 'DESC']]).map((i) => withTasks(i.id));
      expect(idsOf(served)).toEqual(ids(expected));
      expect(served).toEqual(expected);
    });
  });

  describe('getTaskExecution', () => {
    const taskQuery = `query ($id: ID!) { getTaskExecution(id: $id) { ${TASK_FIELDS} } }`;

    for (const expected of [...FIXTURE_TASKS, ...EXTRA_TASKS, PAGING_TASKS[0]!]) {
      it(`serves ${expected.id} (${expected.status}) with every field`, async () => {
        const data = await client.data(taskQuery, { id: expected.id });
        expect(parsed(data['getTaskExecution'] as Record<string, unknown>)).toEqual(expected);
      });
    }

    it('answers null for unknown ids, without an error', async () => {
      const result = await client.send(
        `{ a: getTaskExecution(id: "no-such-task") { id } b: getTaskExecution(id: "${ID.orderIntake}:do/9/missing") { id }
           c: getTaskExecution(id: "${ID.orderFulfilment}:do/0/pickItems/do/0/pickItem@1") { id } }`,
      );
      expect(result.errors).toEqual([]);
      expect(result.data).toEqual({ a: null, b: null, c: null });
    });

    it('serves FAILED task events as FAULTED with the error object and the deprecated errorMessage', async () => {
      const data = await client.data(
        `{ getTaskExecution(id: "${ID.paymentCapture}:do/1/chargeCard") { status errorMessage error { type status instance title detail } } }`,
      );
      expect(data['getTaskExecution']).toEqual({
        status: 'FAULTED',
        errorMessage: 'Service Unavailable',
        error: {
          type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication',
          status: 503,
          instance: 'do/1/chargeCard',
          title: 'Service Unavailable',
          detail: '{"error":"psp_timeout","message":"Upstream \\"acquirer-eu\\" did not answer within 5000 ms","retryable":true}',
        },
      });
    });
  });

  describe('getTaskExecutionsByWorkflowInstance', () => {
    const byInstance = `query ($id: ID!) { getTaskExecutionsByWorkflowInstance(workflowInstanceId: $id) { ${TASK_FIELDS} } }`;

    for (const instance of [...FIXTURE_INSTANCES, ...EXTRA_INSTANCES]) {
      it(`serves the task executions of ${instance.id} in chronological order`, async () => {
        const data = await client.data(byInstance, { id: instance.id });
        expect(rowsOf(data, 'getTaskExecutionsByWorkflowInstance').map(parsed)).toEqual(tasksOf(instance.id));
      });
    }

    it('pairs loop iterations by time and names repeats <instanceId>:<taskPosition>@<start µs>', async () => {
      const data = await client.data(
        `{ getTaskExecutionsByWorkflowInstance(workflowInstanceId: "${ID.orderFulfilment}") { id taskName status startDate endDate } }`,
      );
      expect(data['getTaskExecutionsByWorkflowInstance']).toEqual([
        { id: '01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do', taskName: 'pickItems', status: 'COMPLETED', startDate: '2026-05-12T09:14:15.132858Z', endDate: '2026-05-12T09:14:15.155749Z' },
        { id: '01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem', taskName: 'pickItem', status: 'COMPLETED', startDate: '2026-05-12T09:14:15.132949Z', endDate: '2026-05-12T09:14:15.133182Z' },
        { id: '01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem@1778577255133240', taskName: 'pickItem', status: 'COMPLETED', startDate: '2026-05-12T09:14:15.13324Z', endDate: '2026-05-12T09:14:15.14611Z' },
        { id: '01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem@1778577255146168', taskName: 'pickItem', status: 'COMPLETED', startDate: '2026-05-12T09:14:15.146168Z', endDate: '2026-05-12T09:14:15.155609Z' },
      ]);
    });

    it('pairs a retry: the faulted attempt keeps the plain id, the retried one gets @<start µs>', async () => {
      const data = await client.data(
        `{ getTaskExecutionsByWorkflowInstance(workflowInstanceId: "${ID.ledgerSync}") { id status startDate endDate error { status } } }`,
      );
      expect(data['getTaskExecutionsByWorkflowInstance']).toEqual([
        { id: '01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try', status: 'COMPLETED', startDate: '2026-05-12T09:14:16.40636Z', endDate: '2026-05-12T09:14:18.487737Z', error: null },
        { id: '01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries', status: 'FAULTED', startDate: '2026-05-12T09:14:16.406437Z', endDate: '2026-05-12T09:14:16.445052Z', error: { status: 500 } },
        { id: '01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries@1778577258446396', status: 'COMPLETED', startDate: '2026-05-12T09:14:18.446396Z', endDate: '2026-05-12T09:14:18.487604Z', error: null },
      ]);
    });

    it('answers [] for an unknown instance, without an error', async () => {
      const result = await client.send('{ getTaskExecutionsByWorkflowInstance(workflowInstanceId: "no-such-instance") { id } }');
      expect(result.errors).toEqual([]);
      expect(result.data).toEqual({ getTaskExecutionsByWorkflowInstance: [] });
    });
  });

  describe('getTaskExecutions', () => {
    it('serves every task execution with every field (default order startDate DESC, id; no start sorts last)', async () => {
      const data = await client.data(`{ getTaskExecutions(limit: 1000) { ${TASK_FIELDS} } }`);
      const served = rowsOf(data, 'getTaskExecutions').map(parsed);
      const expected = sortTasks(ALL_TASKS, [['startDate', 'DESC']]);
      expect(idsOf(served)).toEqual(ids(expected));
      expect(served).toEqual(expected);
      expect(idsOf(served).at(-1)).toBe('conformance-waiting:do/1/lateCompletion');
    });

    it('serves a JSON null task output as null', async () => {
      const data = await client.data(`{ getTaskExecution(id: "${ID.lateRunning}:do/0/work") { inputData outputData } }`);
      expect(data['getTaskExecution']).toEqual({ inputData: expect.any(String), outputData: null });
      expect(JSON.parse((data['getTaskExecution'] as { inputData: string }).inputData)).toEqual({ n: 1 });
    });
  });
}
