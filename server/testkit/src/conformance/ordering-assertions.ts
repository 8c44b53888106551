// Ordering: every orderBy key in both directions, several keys in written order (literal and variables),
// nulls last in both directions, code-point string order, `id` as the final tie-breaker, default orders.
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES, ALL_TASKS, ID, PAGING_IDS } from './expected-data.js';
import { ids, sortInstances, sortTasks, type Direction, type InstanceOrderKey, type TaskOrderKey } from './expected-order.js';
import { idsOf, rowsOf } from './served.js';

const INSTANCE_KEYS: readonly InstanceOrderKey[] = ['id', 'name', 'namespace', 'version', 'status', 'startTime', 'endTime', 'startDate', 'endDate', 'lastUpdate'];
const TASK_KEYS: readonly TaskOrderKey[] = ['id', 'taskName', 'taskPosition', 'status', 'enter', 'exit', 'startDate', 'endDate'];
const DIRECTIONS: readonly Direction[] = ['ASC', 'DESC'];

export function describeOrdering(client: GraphQLClient): void {
  const instanceIds = async (args: string, variables?: Record<string, unknown>, declarations = '') => {
    const data = await client.data(`query ${declarations} { getWorkflowInstances(limit: 1000, ${args}) { id } }`, variables);
    return idsOf(rowsOf(data, 'getWorkflowInstances'));
  };
  const taskIds = async (args: string, variables?: Record<string, unknown>, declarations = '') => {
    const data = await client.data(`query ${declarations} { getTaskExecutions(limit: 1000, ${args}) { id } }`, variables);
    return idsOf(rowsOf(data, 'getTaskExecutions'));
  };

  describe('instances', () => {
    for (const key of INSTANCE_KEYS) {
      for (const direction of DIRECTIONS) {
        it(`orderBy: {${key}: ${direction}} (nulls last, then id)`, async () => {
          expect(await instanceIds(`orderBy: {${key}: ${direction}}`)).toEqual(ids(sortInstances(ALL_INSTANCES, [[key, direction]])));
        });
      }
    }

    it('defaults to startDate DESC, then id', async () => {
      const expected = ids(sortInstances(ALL_INSTANCES, [['startDate', 'DESC']]));
      expect(await instanceIds('')).toEqual(expected);
      // groups of three paging instances share a start time: id ascending inside each group
      expect(expected.slice(0, 6)).toEqual(['paging-017', 'paging-034', 'paging-051', 'paging-068', 'paging-085', 'paging-102']);
    });

    it('orders strings by code point, case-sensitive (not by locale, not by UTF-16 code unit)', async () => {
      const filter = 'filter: {or: [{namespace: {eq: "com.acme.conformance"}}, {namespace: {eq: "com.acme.Conformance"}}, {namespace: {isNull: true}}]}';
      // Z (U+5A) < a < b < r: "rateX" < "rate_" (X U+58 < _ U+5F) < z < Ä (U+C4) < ｆ (U+FF46) < 🚀 (U+1F680)
      const ascending = [ID.waiting, ID.lateRunning, ID.faulted404, ID.jsonArrayRoot, ID.jsonNumbers, ID.noNamespace, ID.suspended, ID.fullwidth, ID.timeForms];
      expect(await instanceIds(`${filter}, orderBy: {name: ASC}`)).toEqual(ascending);
      expect(await instanceIds(`${filter}, orderBy: {name: DESC}`)).toEqual([...ascending].reverse());
      // versions as text: "1.0.0" < "1.0.0-SNAPSHOT" < "1.10.0" < "1.2.0" < "10.0.0" < "2.0*beta?" < "9.0.0", null last
      expect(await instanceIds(`${filter}, orderBy: {version: ASC}`)).toEqual([
        ID.jsonNumbers, ID.waiting, ID.jsonArrayRoot, ID.lateRunning, ID.suspended, ID.timeForms, ID.faulted404, ID.fullwidth, ID.noNamespace,
      ]);
    });

    it('sorts nulls last in both directions, with id ascending among equal values', async () => {
      const filter = 'filter: {or: [{namespace: {startsWith: "com.acme.b"}}, {namespace: {isNull: true}}]}';
      expect(await instanceIds(`${filter}, orderBy: {namespace: ASC}`)).toEqual([ID.paymentCapture, ID.ledgerSync, ID.noNamespace]);
      expect(await instanceIds(`${filter}, orderBy: {namespace: DESC}`)).toEqual([ID.paymentCapture, ID.ledgerSync, ID.noNamespace]);
      const running = 'filter: {namespace: {eq: "com.acme.conformance"}}';
      expect(await instanceIds(`${running}, orderBy: {endDate: ASC}`)).toEqual([ID.lateRunning, ID.timeForms, ID.jsonNumbers, ID.jsonArrayRoot, ID.faulted404, ID.suspended, ID.waiting]);
      expect(await instanceIds(`${running}, orderBy: {endDate: DESC}`)).toEqual([ID.faulted404, ID.jsonArrayRoot, ID.jsonNumbers, ID.timeForms, ID.lateRunning, ID.suspended, ID.waiting]);
    });

    it('uses id as the final tie-breaker in both directions', async () => {
      const paging = 'filter: {namespace: {eq: "conformance.paging"}}';
      expect(await instanceIds(`${paging}, orderBy: {name: ASC}`)).toEqual([...PAGING_IDS]);
      expect(await instanceIds(`${paging}, orderBy: {name: DESC}`)).toEqual([...PAGING_IDS]);
      expect(await instanceIds(`${paging}, orderBy: {id: DESC}`)).toEqual([...PAGING_IDS].reverse());
    });

    it('applies several keys in the order written in the query', async () => {
      const orders = 'filter: {namespace: {eq: "com.acme.orders"}}';
      expect(await instanceIds(`${orders}, orderBy: {status: ASC, name: ASC}`)).toEqual([
        ID.orderCancelled, ID.customerNotify, ID.manualReview, ID.orderFulfilment, ID.orderIntake, ID.addressNormalizer,
      ]);
      expect(await instanceIds(`${orders}, orderBy: {name: ASC, status: ASC}`)).toEqual([
        ID.addressNormalizer, ID.customerNotify, ID.manualReview, ID.orderFulfilment, ID.orderCancelled, ID.orderIntake,
      ]);
      const statusThenName = ids(sortInstances(ALL_INSTANCES, [['status', 'ASC'], ['name', 'DESC']]));
      const nameThenStatus = ids(sortInstances(ALL_INSTANCES, [['name', 'DESC'], ['status', 'ASC']]));
      expect(statusThenName).not.toEqual(nameThenStatus);
      expect(await instanceIds('orderBy: {status: ASC, name: DESC}')).toEqual(statusThenName);
      expect(await instanceIds('orderBy: {name: DESC, status: ASC}')).toEqual(nameThenStatus);
      expect(await instanceIds('orderBy: {namespace: DESC, endDate: ASC, version: DESC}')).toEqual(
        ids(sortInstances(ALL_INSTANCES, [['namespace', 'DESC'], ['endDate', 'ASC'], ['version', 'DESC']])),
      );
    });

    it('applies several keys in the order written in the variables JSON', async () => {
      const declarations = '($orderBy: WorkflowInstanceOrderByInput)';
      const statusThenName = ids(sortInstances(ALL_INSTANCES, [['status', 'ASC'], ['name', 'DESC']]));
      const nameThenStatus = ids(sortInstances(ALL_INSTANCES, [['name', 'DESC'], ['status', 'ASC']]));
      expect(await instanceIds('orderBy: $orderBy', { orderBy: { status: 'ASC', name: 'DESC' } }, declarations)).toEqual(statusThenName);
      expect(await instanceIds('orderBy: $orderBy', { orderBy: { name: 'DESC', status: 'ASC' } }, declarations)).toEqual(nameThenStatus);
      expect(await instanceIds('orderBy: $orderBy', { orderBy: { lastUpdate: 'DESC', namespace: 'ASC' } }, declarations)).toEqual(
        ids(sortInstances(ALL_INSTANCES, [['lastUpdate', 'DESC'], ['namespace', 'ASC']])),
      );
    });
  });

  describe('task executions', () => {
    for (const key of TASK_KEYS) {
      for (const direction of DIRECTIONS) {
        it(`orderBy: {${key}: ${direction}} (nulls last, then id)`, async () => {
          expect(await taskIds(`orderBy: {${key}: ${direction}}`)).toEqual(ids(sortTasks(ALL_TASKS, [[key, direction]])));
        });
      }
    }

    it('defaults to startDate DESC, then id', async () => {
      expect(await taskIds('')).toEqual(ids(sortTasks(ALL_TASKS, [['startDate', 'DESC']])));
    });

    it('sorts a missing start last in both directions', async () => {
      const filter = 'filter: {workflowInstanceId: {eq: "conformance-waiting"}}';
      expect(await taskIds(`${filter}, orderBy: {enter: ASC}`)).toEqual(['conformance-waiting:do/0/waitForApproval', 'conformance-waiting:do/1/lateCompletion']);
      expect(await taskIds(`${filter}, orderBy: {enter: DESC}`)).toEqual(['conformance-waiting:do/0/waitForApproval', 'conformance-waiting:do/1/lateCompletion']);
      expect(await taskIds(`${filter}, orderBy: {exit: ASC}`)).toEqual(['conformance-waiting:do/1/lateCompletion', 'conformance-waiting:do/0/waitForApproval']);
      expect(await taskIds(`${filter}, orderBy: {exit: DESC}`)).toEqual(['conformance-waiting:do/1/lateCompletion', 'conformance-waiting:do/0/waitForApproval']);
    });

    it('applies several keys in written order, in literals and in variables', async () => {
      const statusThenName = ids(sortTasks(ALL_TASKS, [['status', 'ASC'], ['taskName', 'DESC']]));
      const nameThenStatus = ids(sortTasks(ALL_TASKS, [['taskName', 'DESC'], ['status', 'ASC']]));
      expect(statusThenName).not.toEqual(nameThenStatus);
      expect(await taskIds('orderBy: {status: ASC, taskName: DESC}')).toEqual(statusThenName);
      expect(await taskIds('orderBy: {taskName: DESC, status: ASC}')).toEqual(nameThenStatus);
      const declarations = '($orderBy: TaskExecutionOrderByInput)';
      expect(await taskIds('orderBy: $orderBy', { orderBy: { status: 'ASC', taskName: 'DESC' } }, declarations)).toEqual(statusThenName);
      expect(await taskIds('orderBy: $orderBy', { orderBy: { taskName: 'DESC', status: 'ASC' } }, declarations)).toEqual(nameThenStatus);
      expect(await taskIds('orderBy: $orderBy', { orderBy: { exit: 'DESC', taskPosition: 'ASC' } }, declarations)).toEqual(
        ids(sortTasks(ALL_TASKS, [['exit', 'DESC'], ['taskPosition', 'ASC']])),
      );
    });

    it('orders a filtered list: the retry attempts of one position by start', async () => {
      expect(await taskIds('filter: {taskName: {eq: "postEntries"}}, orderBy: {enter: DESC}')).toEqual([
        '01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries@1778577258446396',
        '01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries',
      ]);
    });
  });
}
