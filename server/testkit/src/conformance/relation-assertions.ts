// Tasks know their run: TaskExecution.workflowInstance, task filters on the run's workflowName / workflowNamespace /
// workflowVersion; runs filtered by their tasks: the instance filter taskExecutions (at least one task matches).
import { expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES, ALL_TASKS, ID, instanceById, PAGING_IDS } from './expected-data.js';
import { compareCodePoints } from './expected-order.js';
import { instanceIdsForLiteral, instanceIdsForVariable, parsed, rowsOf, taskIdsForLiteral } from './served.js';

const sorted = (list: readonly string[]): string[] => [...list].sort(compareCodePoints);
const tasksOfInstances = (keep: (instanceId: string) => boolean): string[] => sorted(ALL_TASKS.filter((t) => keep(t.workflowInstanceId)).map((t) => t.id));
const instancesWithTask = (keep: (task: (typeof ALL_TASKS)[number]) => boolean): string[] => sorted([...new Set(ALL_TASKS.filter(keep).map((t) => t.workflowInstanceId))]);

export function describeRelations(client: GraphQLClient): void {
  it('TaskExecution.workflowInstance is the task\'s run, for every task execution of a page', async () => {
    const data = await client.data('{ getTaskExecutions(limit: 1000) { id workflowInstanceId workflowInstance { id name namespace version status inputData } } }');
    const rows = rowsOf(data, 'getTaskExecutions');
    expect(rows).toHaveLength(ALL_TASKS.length);
    for (const row of rows) {
      const run = instanceById(String(row['workflowInstanceId']));
      expect(parsed(row['workflowInstance'] as Record<string, unknown>)).toEqual({
        id: run.id, name: run.name, namespace: run.namespace, version: run.version, status: run.status, inputData: run.inputData,
      });
    }
  });

  it('by hand: the faulted chargeCard task of payment-capture, with its run, in one query', async () => {
    const data = await client.data(`{
      getTaskExecutions(filter: {taskName: "chargeCard", status: "FAULTED", workflowName: "payment-capture", startDate: {gte: "2026-05-12T00:00:00Z"}}) {
        id workflowInstance { id name version }
      }
    }`);
    expect(rowsOf(data, 'getTaskExecutions')).toEqual([
      { id: `${ID.paymentCapture}:do/1/chargeCard`, workflowInstance: { id: ID.paymentCapture, name: 'payment-capture', version: '2.1.0' } },
    ]);
  });

  it.each([
    ['{workflowName: "order-intake"}', (id: string) => instanceById(id).name === 'order-intake'],
    ['{workflowName: {like: "order-*"}}', (id: string) => instanceById(id).name.startsWith('order-')],
    ['{workflowNamespace: "com.acme.billing"}', (id: string) => instanceById(id).namespace === 'com.acme.billing'],
    ['{workflowNamespace: {isNull: true}}', (id: string) => instanceById(id).namespace === null],
    ['{workflowVersion: {in: ["1.0.0", "2.0*beta?"]}}', (id: string) => ['1.0.0', '2.0*beta?'].includes(instanceById(id).version ?? '')],
    ['{workflowName: "order-intake", workflowVersion: "1.0.0"}', (id: string) => instanceById(id).name === 'order-intake' && instanceById(id).version === '1.0.0'],
    ['{not: {workflowName: "paging"}}', (id: string) => !PAGING_IDS.includes(id)],
    ['{or: [{workflowName: "zeta"}, {workflowNamespace: {startsWith: "com.acme.b"}}]}', (id: string) => instanceById(id).name === 'zeta' || (instanceById(id).namespace ?? '').startsWith('com.acme.b')],
  ] as const)('task filter %s', async (filter, keep) => {
    expect(await taskIdsForLiteral(client, filter)).toEqual(tasksOfInstances(keep));
  });

  it('by hand: tasks of the billing runs', async () => {
    expect(await taskIdsForLiteral(client, '{workflowNamespace: "com.acme.billing"}')).toEqual(
      sorted([
        `${ID.paymentCapture}:do/0/loadInvoice`,
        `${ID.paymentCapture}:do/1/chargeCard`,
        `${ID.ledgerSync}:do/0/syncLedger/try`,
        `${ID.ledgerSync}:do/0/syncLedger/try/0/postEntries`,
        `${ID.ledgerSync}:do/0/syncLedger/try/0/postEntries@1778577258446396`,
      ]),
    );
  });

  it.each([
    ['{taskExecutions: {status: "FAULTED"}}', instancesWithTask((t) => t.status === 'FAULTED')],
    ['{taskExecutions: {taskName: "chargeCard", status: "FAULTED"}}', [ID.paymentCapture]],
    ['{taskExecutions: {taskName: "validateOrder"}}', [ID.orderIntake, ID.orderCancelled]],
    ['{taskExecutions: {status: "RUNNING"}}', [ID.waiting]],
    ['{taskExecutions: {startDate: {isNull: true}}}', [ID.waiting]],
    ['{taskExecutions: {taskName: "nope"}}', []],
    // all tasks of one run AND: one task must match both, not two different tasks
    ['{taskExecutions: {taskName: "loadInvoice", status: "FAULTED"}}', []],
    ['{taskExecutions: {status: "FAULTED"}, name: {ne: "ledger-sync"}}', [ID.paymentCapture, ID.addressNormalizer, ID.faulted404]],
    ['{not: {taskExecutions: {status: {ne: "COMPLETED"}}}}', sorted(ALL_INSTANCES.map((i) => i.id).filter((id) => !ALL_TASKS.some((t) => t.workflowInstanceId === id && t.status !== 'COMPLETED')))],
    ['{taskExecutions: {workflowName: "ledger-sync"}}', [ID.ledgerSync]],
  ] as const)('instance filter %s', async (filter, expected) => {
    expect(await instanceIdsForLiteral(client, filter)).toEqual(sorted(expected));
  });

  it('by hand: runs where a task faulted', async () => {
    expect(await instanceIdsForLiteral(client, '{taskExecutions: {status: "FAULTED"}}')).toEqual(sorted([ID.paymentCapture, ID.ledgerSync, ID.addressNormalizer, ID.faulted404]));
    expect(await instanceIdsForVariable(client, { taskExecutions: { taskName: { eq: 'lookup' }, error: { status: { eq: 404 } } } })).toEqual([ID.faulted404]);
  });

  it('nesting inside taskExecutions counts against GRAPHQL_MAX_FILTER_DEPTH (32): BAD_USER_INPUT beyond it', async () => {
    let filter = '{status: "FAULTED"}';
    for (let i = 0; i < 32; i++) filter = `{and: [${filter}]}`;
    const errors = await client.errors(`{ getWorkflowInstances(filter: {taskExecutions: ${filter}}) { id } }`);
    expect(errors[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(errors[0]?.message).toContain('GRAPHQL_MAX_FILTER_DEPTH');
  });
}
