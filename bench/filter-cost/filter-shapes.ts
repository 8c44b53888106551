// The request shapes bench:filter-cost measures: one per unit the query cost prices (server/core/src/query-cost.ts),
// each at growing sizes within the default limits, with values that match nothing (the database then reads the most:
// a page query walks its whole ordering for matches that never come).

export interface GraphQLRequest {
  readonly query: string;
  readonly variables: Record<string, unknown>;
}

export interface FilterShape {
  readonly name: string;
  /** What one more of `size` is. */
  readonly unit: string;
  readonly sizes: readonly number[];
  request(size: number): GraphQLRequest;
}

const ROW_FIELDS = 'id name namespace version status startDate endDate lastUpdate';
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** A page of 5 instances under `filter`. */
function instances(filter: unknown): GraphQLRequest {
  return { query: 'query P($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f, limit: 5) { id } }', variables: { f: filter } };
}

function tasks(filter: unknown): GraphQLRequest {
  return { query: 'query T($f: TaskExecutionFilterInput) { getTaskExecutions(filter: $f, limit: 5) { id } }', variables: { f: filter } };
}

/** `filter` nested `depth` levels deep in alternating and/or, with one condition at the bottom. */
function nestedFilter(depth: number): unknown {
  let node: unknown = { name: { eq: 'no-such-workflow' } };
  for (let level = 0; level < depth; level++) node = level % 2 === 0 ? { and: [node] } : { or: [node] };
  return node;
}

export const FILTER_SHAPES: readonly FilterShape[] = [
  {
    name: 'rows',
    unit: 'served row',
    sizes: [1, 10, 100, 1000],
    request: (n) => ({ query: `query R($n: Int) { getWorkflowInstances(limit: $n) { ${ROW_FIELDS} } }`, variables: { n } }),
  },
  {
    name: 'aliases',
    unit: 'alias',
    sizes: [1, 10, 30, 100],
    request: (n) => ({ query: `query A { ${range(n).map((i) => `a${i}: getWorkflowInstances(limit: 1) { id }`).join(' ')} }`, variables: {} }),
  },
  {
    name: 'string-in',
    unit: 'in value',
    sizes: [1, 100, 1000, 10_000],
    request: (n) => instances({ name: { in: range(n).map((i) => `no-such-workflow-${i}`) } }),
  },
  {
    name: 'int-in',
    unit: 'in value',
    sizes: [1, 100, 1000, 10_000],
    request: (n) => instances({ error: { status: { in: range(n).map((i) => 100_000 + i) } } }),
  },
  {
    name: 'json-in',
    unit: 'JSON in value',
    sizes: [1, 100, 1000, 10_000],
    request: (n) => instances({ input: { in: [{ key: 'customer.id', values: range(n).map((i) => `no-such-customer-${i}`) }] } }),
  },
  {
    name: 'json-in-under-or',
    unit: 'JSON in value',
    sizes: [1, 100, 1000, 10_000],
    request: (n) => instances({ or: [{ name: { eq: 'no-such-workflow' } }, { input: { in: [{ key: 'customer.id', values: range(n).map((i) => `no-such-customer-${i}`) }] } }] }),
  },
  {
    name: 'task-json-in',
    unit: 'JSON in value',
    sizes: [1, 1000, 10_000],
    request: (n) => tasks({ inputArgs: { in: [{ key: 'step', values: range(n).map((i) => `no-such-step-${i}`) }] } }),
  },
  {
    name: 'json-eq-pairs',
    unit: 'JSON path test',
    sizes: [1, 10, 100],
    request: (n) => instances({ input: { eq: range(n).map((i) => ({ key: `customer.k${i}`, value: `no-such-value-${i}` })) } }),
  },
  {
    name: 'json-eq-or',
    unit: 'JSON path test',
    sizes: [1, 10, 100],
    request: (n) => instances({ or: range(n).map((i) => ({ input: { eq: [{ key: 'customer.id', value: `no-such-customer-${i}` }] } })) }),
  },
  {
    name: 'json-compare',
    unit: 'JSON path test',
    sizes: [1, 10, 100],
    request: (n) => instances({ or: range(n).map((i) => ({ input: { gt: [{ key: 'amount', value: String(1_000_000 + i) }] } })) }),
  },
  {
    name: 'like',
    unit: 'like pattern',
    sizes: [1, 10, 100],
    request: (n) => instances({ or: range(n).map((i) => ({ name: { like: `*no-such-${i}*` } })) }),
  },
  {
    name: 'relation',
    unit: 'nested filter',
    sizes: [1, 10, 100],
    request: (n) => instances({ or: range(n).map((i) => ({ taskExecutions: { taskName: { eq: `no-such-task-${i}` } } })) }),
  },
  {
    name: 'relation-broad',
    unit: 'nested filter',
    sizes: [1, 10, 49],
    request: (n) => instances({ and: [{ name: { eq: 'no-such-workflow' } }, { or: range(n).map((i) => ({ taskExecutions: { taskName: { ne: `no-such-task-${i}` } } })) }] }),
  },
  {
    name: 'relation-broad-or',
    unit: 'nested filter',
    sizes: [1, 10, 49],
    request: (n) => instances({ or: range(n).map((i) => ({ and: [{ name: { eq: `no-such-workflow-${i}` } }, { taskExecutions: { taskName: { ne: `no-such-task-${i}` } } }] })) }),
  },
  {
    name: 'depth',
    unit: 'and/or level',
    sizes: [1, 16, 31],
    request: (n) => instances(nestedFilter(n)),
  },
];
