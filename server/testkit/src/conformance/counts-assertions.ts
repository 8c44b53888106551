// countWorkflowInstances, countTaskExecutions and workflowInstanceStatusCounts: exact values below COUNT_EXACT_LIMIT,
// equal to the number of rows the same filter lists; above the limit (the estimating app, limit 10) `exact: false`
// and a value above the limit.
import { expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES, ALL_TASKS } from './expected-data.js';
import { instanceIdsForLiteral, taskIdsForLiteral } from './served.js';

const STATUSES = ['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'] as const;

type StatusCounts = { status: string; count: { value: number; exact: boolean } }[];

const statusCountsOf = (rows: readonly { readonly status: string }[]): StatusCounts =>
  STATUSES.map((status) => ({ status, count: { value: rows.filter((r) => r.status === status).length, exact: true } }));

const INSTANCE_FILTERS: readonly string[] = [
  '{status: FAULTED}',
  '{name: {like: "order-*"}}',
  '{namespace: {eq: "com.acme.conformance"}}',
  '{namespace: {isNull: true}}',
  '{not: {status: {in: [RUNNING, COMPLETED]}}}',
  '{startDate: {gte: "2026-05-13T00:00:00Z"}, status: {ne: RUNNING}}',
  '{name: {in: []}}',
];
const TASK_FILTERS: readonly string[] = ['{status: "FAULTED"}', '{taskName: {eq: "pickItem"}}', '{status: {ne: "COMPLETED"}}', '{endDate: {isNull: true}}', '{not: {workflowInstanceId: {startsWith: "paging"}}}'];

/** The COUNT_EXACT_LIMIT of the suite's second app: below the data's 122 instances, so their count is an estimate. */
export const ESTIMATING_COUNT_LIMIT = 10;

export function describeCounts(client: GraphQLClient, estimating: GraphQLClient): void {
  it('countWorkflowInstances without a filter: every served instance (122), exact; placeholders never counted', async () => {
    expect(ALL_INSTANCES).toHaveLength(122);
    const data = await client.data('{ countWorkflowInstances { value exact } }');
    expect(data['countWorkflowInstances']).toEqual({ value: 122, exact: true });
  });

  it('countTaskExecutions without a filter: every served task execution, exact', async () => {
    const data = await client.data('{ countTaskExecutions { value exact } }');
    expect(data['countTaskExecutions']).toEqual({ value: ALL_TASKS.length, exact: true });
    expect(ALL_TASKS).toHaveLength(31 + 105);
  });

  it('exact values by hand: FAULTED instances 3, FAULTED task executions 4, order-* instances 3, nothing for in: []', async () => {
    const data = await client.data(`{
      faulted: countWorkflowInstances(filter: {status: FAULTED}) { value exact }
      faultedTasks: countTaskExecutions(filter: {status: "FAULTED"}) { value exact }
      orders: countWorkflowInstances(filter: {name: {like: "order-*"}}) { value exact }
      none: countWorkflowInstances(filter: {name: {in: []}}) { value exact }
    }`);
    expect(data).toEqual({
      faulted: { value: 3, exact: true },
      faultedTasks: { value: 4, exact: true },
      orders: { value: 3, exact: true },
      none: { value: 0, exact: true },
    });
  });

  it.each(INSTANCE_FILTERS)('countWorkflowInstances(filter: %s) equals the number of instances the filter lists', async (filter) => {
    const listed = await instanceIdsForLiteral(client, filter);
    const data = await client.data(`{ countWorkflowInstances(filter: ${filter}) { value exact } }`);
    expect(data['countWorkflowInstances']).toEqual({ value: listed.length, exact: true });
  });

  it.each(TASK_FILTERS)('countTaskExecutions(filter: %s) equals the number of task executions the filter lists', async (filter) => {
    const listed = await taskIdsForLiteral(client, filter);
    const data = await client.data(`{ countTaskExecutions(filter: ${filter}) { value exact } }`);
    expect(data['countTaskExecutions']).toEqual({ value: listed.length, exact: true });
  });

  it('workflowInstanceStatusCounts: every status in enum order, zeros included, in one request', async () => {
    const data = await client.data('{ workflowInstanceStatusCounts { status count { value exact } } }');
    const expected = statusCountsOf(ALL_INSTANCES);
    expect(data['workflowInstanceStatusCounts']).toEqual(expected);
    // by hand: waiting + 105 paging runs, 10 completed, 3 faulted, 2 cancelled, 1 suspended
    expect(expected.map((e) => e.count.value)).toEqual([106, 10, 3, 2, 1]);
  });

  it('workflowInstanceStatusCounts with a filter (a status condition in it applies too)', async () => {
    const data = await client.data(`{
      conformance: workflowInstanceStatusCounts(filter: {namespace: "com.acme.conformance"}) { status count { value exact } }
      finished: workflowInstanceStatusCounts(filter: {status: {in: [FAULTED, CANCELLED]}}) { status count { value exact } }
    }`);
    expect(data['conformance']).toEqual(statusCountsOf(ALL_INSTANCES.filter((i) => i.namespace === 'com.acme.conformance')));
    expect((data['conformance'] as StatusCounts).map((e) => e.count.value)).toEqual([1, 4, 1, 0, 1]);
    expect(data['finished']).toEqual(statusCountsOf(ALL_INSTANCES.filter((i) => i.status === 'FAULTED' || i.status === 'CANCELLED')));
  });

  it('above COUNT_EXACT_LIMIT (10 here): exact false and a value above the limit; at or below it still exact', async () => {
    const data = await estimating.data(`{
      all: countWorkflowInstances { value exact }
      completed: countWorkflowInstances(filter: {status: COMPLETED}) { value exact }
      tasks: countTaskExecutions { value exact }
      byStatus: workflowInstanceStatusCounts { status count { value exact } }
    }`);
    const all = data['all'] as { value: number; exact: boolean };
    expect(all.exact).toBe(false);
    expect(all.value).toBeGreaterThan(10);
    // exactly 10 match: not above the limit
    expect(data['completed']).toEqual({ value: 10, exact: true });
    expect((data['tasks'] as { exact: boolean }).exact).toBe(false);
    const byStatus = data['byStatus'] as StatusCounts;
    expect(byStatus.map((e) => e.status)).toEqual([...STATUSES]);
    expect(byStatus[0]?.count.exact).toBe(false);
    expect(byStatus[0]?.count.value).toBeGreaterThan(10);
    expect(byStatus.slice(1)).toEqual(statusCountsOf(ALL_INSTANCES).slice(1));
  });

  it('a filter error in a count is BAD_USER_INPUT like in the list', async () => {
    const errors = await client.errors('{ countWorkflowInstances(filter: {input: {eq: [{key: "a..b", value: "1"}]}}) { value } }');
    expect(errors[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(errors[0]?.message).toContain('dot path');
  });
}
