// The request mix of bench:query, shared by both backends' benchmarks so they measure the same GraphQL bodies with
// the same variants: each row's name, query and variables (the variants come from one seeded stream, in this order,
// so a row's variants depend on the rows before it). Each benchmark adds its own floor per row (the PostgreSQL
// reader's SQL, or a hand-written OpenSearch search). The dataset these select from is the test kit's population
// (server/testkit/src/bench-dataset.ts), which each backend's test support writes (its bench-dataset.ts).
import { BASE_TIME, CUSTOMERS, NAMESPACES, SPAN_SECONDS, STATUSES, TASK_NAMES, benchInstanceId } from '@workflow-index/testkit';
import { encodeCursor } from '@workflow-index/core';
import { seededRandom } from '@workflow-index/testkit';


export interface MixQuery {
  readonly name: string;
  readonly query: string;
  readonly variables: ReadonlyArray<Record<string, unknown>>;
}

/** Start times (cursor form) of the instances the cursor queries continue after, in id order. */
export type CursorRows = ReadonlyArray<{ readonly id: string; readonly start: string }>;

export function queryMix(instances: number, cursorRows: CursorRows): MixQuery[] {
  const rnd = seededRandom(20260401); // the same request mix on every run
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
  const iso = (ms: number): string => new Date(ms).toISOString();
  const VARIANTS = 200;
  return [
    {
      name: 'instances-page',
      query: `query Page($status: WorkflowInstanceStatus!, $namespace: String!) {
        getWorkflowInstances(limit: 20, filter: {status: {eq: $status}, namespace: {eq: $namespace}}, orderBy: {startDate: DESC}) {
          id name namespace version status startDate endDate lastUpdate } }`,
      variables: STATUSES.flatMap((status) => Array.from({ length: NAMESPACES }, (_, n) => ({ status, namespace: `com.acme.ns${n}` }))),
    },
    {
      name: 'instance-by-id-with-tasks',
      query: `query One($id: ID!) { getWorkflowInstance(id: $id) {
        id name namespace status startDate endDate error { type title status } taskExecutions { id taskName taskPosition status startDate endDate } } }`,
      variables: Array.from({ length: VARIANTS }, () => ({ id: benchInstanceId(1 + Math.floor(rnd() * instances)) })),
    },
    {
      name: 'tasks-by-name-and-time',
      query: `query Tasks($name: String!, $from: DateTime!, $to: DateTime!) {
        getTaskExecutions(limit: 20, filter: {taskName: {eq: $name}, startDate: {between: {from: $from, to: $to}}}) {
          id workflowInstanceId taskName status startDate endDate } }`,
      variables: Array.from({ length: VARIANTS }, () => {
        const from = BASE_TIME + Math.floor(rnd() * (SPAN_SECONDS - 3600)) * 1000;
        return { name: pick(TASK_NAMES), from: iso(from), to: iso(from + 3600 * 1000) };
      }),
    },
    {
      name: 'instances-oldest-first-offset',
      query: `query Oldest($offset: Int!) { getWorkflowInstances(limit: 20, offset: $offset, orderBy: {startDate: ASC}) { id name status startDate } }`,
      variables: Array.from({ length: VARIANTS }, (_, k) => ({ offset: 5000 + k })),
    },
    {
      name: 'instances-oldest-first-cursor',
      query: `query OldestAfter($after: String!) { getWorkflowInstances(limit: 20, after: $after, orderBy: {startDate: ASC}) { id name status startDate cursor } }`,
      variables: cursorRows.map((row) => ({ after: encodeCursor('instances', [{ field: 'startDate', direction: 'ASC' }, { field: 'id', direction: 'ASC' }], [row.start, row.id]) })),
    },
    {
      name: 'instances-newest-first-cursor',
      query: `query NewestAfter($after: String!) { getWorkflowInstances(limit: 20, after: $after) { id name status startDate cursor } }`,
      variables: cursorRows.map((row) => ({ after: encodeCursor('instances', [{ field: 'startDate', direction: 'DESC' }, { field: 'id', direction: 'ASC' }], [row.start, row.id]) })),
    },
    {
      name: 'instances-name-like',
      query: `query Like($pattern: String!) { getWorkflowInstances(limit: 20, filter: {name: {like: $pattern}}) { id name status startDate } }`,
      variables: Array.from({ length: 17 }, (_, k) => ({ pattern: `flow-${k}*` })),
    },
    {
      name: 'tasks-of-instance',
      query: `query TasksOf($id: ID!) { getTaskExecutionsByWorkflowInstance(workflowInstanceId: $id) { id taskName taskPosition status startDate endDate } }`,
      variables: Array.from({ length: VARIANTS }, () => ({ id: benchInstanceId(1 + Math.floor(rnd() * instances)) })),
    },
    {
      name: 'instances-json-input',
      query: `query Json($customer: String!) {
        getWorkflowInstances(limit: 20, filter: {input: {eq: [{key: "customer.id", value: $customer}]}}) { id name status startDate } }`,
      variables: Array.from({ length: VARIANTS }, () => ({ customer: `C-${Math.floor(rnd() * CUSTOMERS)}` })),
    },
    {
      // 0.5 % to 7 % of the runs match: above COUNT_EXACT_LIMIT for most pairs at 1,000,000 runs, not at 100,000.
      name: 'count-instances',
      query: `query Count($status: WorkflowInstanceStatus!, $namespace: String!) {
        countWorkflowInstances(filter: {status: {eq: $status}, namespace: {eq: $namespace}}) { value exact } }`,
      variables: STATUSES.flatMap((status) => Array.from({ length: NAMESPACES }, (_, n) => ({ status, namespace: `com.acme.ns${n}` }))),
    },
    {
      name: 'status-counts',
      query: `query StatusCounts($namespace: String!) {
        workflowInstanceStatusCounts(filter: {namespace: {eq: $namespace}}) { status count { value exact } } }`,
      variables: Array.from({ length: NAMESPACES }, (_, n) => ({ namespace: `com.acme.ns${n}` })),
    },
    // Beyond counts of runs: task counts, relation filters, durations, JSON operators (their
    // filters are GraphQL variables).
    {
      // 100,000 tasks per name at 100,000 runs, 1,000,000 at 1,000,000: above COUNT_EXACT_LIMIT (exact: false).
      name: 'count-tasks-by-name',
      query: `query CountTasks($filter: TaskExecutionFilterInput) { countTaskExecutions(filter: $filter) { value exact } }`,
      variables: TASK_NAMES.map((name) => ({ filter: { taskName: { eq: name } } })),
    },
    {
      // The faulted tasks of one name: 1,000 at 100,000 runs, 10,000 at 1,000,000 (exact).
      name: 'count-tasks-faulted',
      query: `query CountTasks($filter: TaskExecutionFilterInput) { countTaskExecutions(filter: $filter) { value exact } }`,
      variables: TASK_NAMES.map((name) => ({ filter: { taskName: { eq: name }, status: { eq: 'FAULTED' } } })),
    },
    {
      // Runs where a task of one name faulted: 1 % of the runs each.
      name: 'instances-task-faulted',
      query: `query RunsWhere($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 20, filter: $filter) { id name status startDate endDate } }`,
      variables: TASK_NAMES.map((name) => ({ filter: { taskExecutions: { taskName: { eq: name }, status: { eq: 'FAULTED' } } } })),
    },
    {
      // The faulted tasks of one workflow in one day (about 20 at 100,000 runs, 200 at 1,000,000), newest first.
      name: 'tasks-workflow-faulted-day',
      query: `query FaultedOf($filter: TaskExecutionFilterInput) { getTaskExecutions(limit: 20, filter: $filter) { id workflowInstanceId taskName status startDate endDate } }`,
      variables: Array.from({ length: VARIANTS }, () => {
        const from = BASE_TIME + Math.floor(rnd() * (SPAN_SECONDS - 86_400)) * 1000;
        return { filter: { workflowName: { eq: `flow-${Math.floor(rnd() * 17)}` }, status: { eq: 'FAULTED' }, startDate: { between: { from: iso(from), to: iso(from + 86_400_000) } } } };
      }),
    },
    // Task filters on the run's fields (copied into each task row / document).
    {
      // The tasks of one workflow and task name: 5,883 at 100,000 runs (exact), 58,824 at 1,000,000 (exact: false).
      name: 'count-tasks-by-workflow-and-name',
      query: `query CountTasks($filter: TaskExecutionFilterInput) { countTaskExecutions(filter: $filter) { value exact } }`,
      variables: Array.from({ length: 17 }, (_, k) => TASK_NAMES.map((name) => ({ filter: { workflowName: { eq: `flow-${k}` }, taskName: { eq: name } } }))).flat(),
    },
    {
      // "Faulted chargeCard tasks of payment-capture this week": one workflow, one task name, FAULTED, one week, newest
      // first (about 14 at 100,000 runs, 140 at 1,000,000).
      name: 'tasks-workflow-name-faulted-week',
      query: `query FaultedOf($filter: TaskExecutionFilterInput) { getTaskExecutions(limit: 20, filter: $filter) { id workflowInstanceId taskName status startDate endDate } }`,
      variables: Array.from({ length: VARIANTS }, () => {
        const from = BASE_TIME + Math.floor(rnd() * (SPAN_SECONDS - 7 * 86_400)) * 1000;
        return { filter: { workflowName: { eq: `flow-${Math.floor(rnd() * 17)}` }, taskName: { eq: pick(TASK_NAMES) }, status: { eq: 'FAULTED' }, startDate: { between: { from: iso(from), to: iso(from + 7 * 86_400_000) } } } };
      }),
    },
    {
      // How many runs faulted at a task of one name: 1,000 at 100,000 runs (exact), 10,000 at 1,000,000.
      name: 'count-instances-task-faulted',
      query: `query CountRuns($filter: WorkflowInstanceFilterInput) { countWorkflowInstances(filter: $filter) { value exact } }`,
      variables: TASK_NAMES.map((name) => ({ filter: { taskExecutions: { taskName: { eq: name }, status: { eq: 'FAULTED' } } } })),
    },
    {
      // Runs longer than 4 to 55 s, newest first: 1.5 % to 0.2 % of the runs (the dataset's slow tail).
      name: 'instances-duration-gt',
      query: `query Slow($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 20, filter: $filter) { id name status startDate endDate durationMs } }`,
      variables: [4000, 10_000, 20_000, 30_000, 40_000, 50_000, 55_000].map((ms) => ({ filter: { duration: { gt: ms } } })),
    },
    {
      // The slowest runs of one workflow.
      name: 'instances-slowest',
      query: `query Slowest($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 20, filter: $filter, orderBy: {duration: DESC}) { id name status startDate endDate durationMs } }`,
      variables: Array.from({ length: 17 }, (_, k) => ({ filter: { name: { eq: `flow-${k}` } } })),
    },
    {
      // input.amount > 900 … 989 (amounts are g % 1000 + 0.5): 10 % to 1 % of the runs.
      name: 'instances-json-gt',
      query: `query Amount($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 20, filter: $filter) { id name status startDate } }`,
      variables: Array.from({ length: VARIANTS }, () => ({ filter: { input: { gt: [{ key: 'amount', value: String(900 + Math.floor(rnd() * 90)) }] } } })),
    },
    {
      // input.customer.id contains "C-10" … "C-49": 111 of the 5,000 customers each (C-10, C-100…109, C-1000…1099),
      // 2.2 % of the runs.
      name: 'instances-json-contains',
      query: `query Customer($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 20, filter: $filter) { id name status startDate } }`,
      variables: Array.from({ length: 40 }, (_, k) => ({ filter: { input: { contains: [{ key: 'customer.id', value: `C-${10 + k}` }] } } })),
    },
    {
      // input.customer.tier ne "std" or "gold": the other tier's runs, 1/3 or 2/3.
      name: 'instances-json-ne',
      query: `query NotTier($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 20, filter: $filter) { id name status startDate } }`,
      variables: ['std', 'gold'].map((tier) => ({ filter: { input: { ne: [{ key: 'customer.tier', value: tier }] } } })),
    },
    {
      // input.customer.id in three customers: 0.06 % of the runs (60 at 100,000).
      name: 'instances-json-in',
      query: `query Customers($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 20, filter: $filter) { id name status startDate } }`,
      variables: Array.from({ length: VARIANTS }, () => ({
        filter: { input: { in: [{ key: 'customer.id', values: Array.from({ length: 3 }, () => `C-${Math.floor(rnd() * CUSTOMERS)}`) }] } },
      })),
    },
    {
      // input.coupon exists: 2 % of the runs, and exists: false (98 %).
      name: 'instances-json-exists',
      query: `query Coupon($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 20, filter: $filter) { id name status startDate } }`,
      variables: [true, false].map((value) => ({ filter: { input: { exists: [{ key: 'coupon', value }] } } })),
    },
  ];
}

/** The id an `after` cursor variable continues after (its row in CursorRows). */
export function cursorIdOf(variables: Record<string, unknown>): string {
  const decoded = JSON.parse(Buffer.from(String(variables['after']), 'base64url').toString('utf8')) as [string, string, string[], string[]];
  return decoded[3][1] as string;
}

/** The rows named by `--queries a,b,c` (all without it); an unknown name is an error listing the mix. */
export function selectQueries<T extends { readonly name: string }>(mix: readonly T[], queries: string | undefined, extraNames: readonly string[] = []): T[] {
  if (queries === undefined) return [...mix];
  const only = new Set(queries.split(',').map((name) => name.trim()).filter((name) => name !== ''));
  const known = [...mix.map((row) => row.name), ...extraNames];
  if (only.size === 0) throw new Error(`--queries names no query (an empty list measured nothing and looked like a run); the mix: ${known.join(', ')}`);
  const unknown = [...only].filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new Error(`--queries: unknown ${unknown.join(', ')}; the mix: ${known.join(', ')}`);
  return mix.filter((row) => only.has(row.name));
}
