// Legal requests at the edges of every limit, as a hostile client sends them: the longest in lists (10,000 values,
// GRAPHQL_MAX_FILTER_IN_VALUES), JSON in lists of as many values, the deepest and/or nesting (GRAPHQL_MAX_FILTER_DEPTH),
// the widest filters (GRAPHQL_MAX_FILTER_CONDITIONS), the most aliases (GRAPHQL_MAX_ALIASES), the largest limits,
// deep offsets, nested task lists, counts per status, one filter shared by every alias. Values mostly match nothing
// (the backend then reads the most) and sometimes everything. Each backend's bounded-work test sends them to the real
// server and asserts what the backend did (bench data: bench-dataset.ts).
import fc from 'fast-check';
import { TEXT_OPERATOR_NAMES, TEXT_OPERATORS } from '@workflow-index/core';

export interface EdgeRequest {
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
}

/** The default limits of the core configuration (config.ts). */
export const EDGE = { inValues: 10_000, depth: 32, conditions: 100, aliases: 30, maxLimit: 1000 } as const;

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
/** In-list sizes: the edges (mostly the longest) and a few between. */
const listSize = fc.oneof({ weight: 3, arbitrary: fc.constant(EDGE.inValues) }, { weight: 2, arbitrary: fc.constant(2500) }, { weight: 2, arbitrary: fc.constantFrom(0, 1, 9, 100) });

const nothing = (prefix: string) => (n: number) => range(n).map((i) => `${prefix}-${i}`);
/** Values the bench data holds (see bench-dataset.ts), so that some filters match. */
const SOME = { name: ['flow-3', 'flow-11'], namespace: ['com.acme.ns1'], customer: ['C-17', 'C-4999'], tier: ['gold', 'std'] };

type Filter = Record<string, unknown>;

/** One condition of a run filter (each counts one condition, GRAPHQL_MAX_FILTER_CONDITIONS). */
const runLeaf: fc.Arbitrary<Filter> = fc.oneof(
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('id', 'name', 'namespace', 'version'), listSize, fc.boolean()).map(([field, n, some]) => ({ [field]: { in: [...(some ? SOME.name : []), ...nothing(`no-${field}`)(n)].slice(0, EDGE.inValues) } })) },
  listSize.map((n) => ({ error: { status: { in: range(n).map((i) => 100_000 + i) } } })),
  {
    weight: 4,
    arbitrary: fc.tuple(fc.constantFrom('customer.id', 'customer.tier', 'amount', 'items.0.sku', 'no.such.key'), listSize, fc.boolean(), fc.constantFrom('input', 'output')).map(([key, n, some, field]) => ({
      [field]: { in: [{ key, values: [...(some ? [...SOME.customer, ...SOME.tier] : []), ...nothing('no-value')(n)].slice(0, EDGE.inValues) }] },
    })),
  },
  fc.tuple(fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains'), fc.constantFrom('amount', 'customer.id', 'customer.tier', 'items.0.qty'), fc.constantFrom('5', '999999', 'C-1', 'gold', 'zz')).map(([op, key, value]) => ({ input: { [op]: [{ key, value }] } })),
  fc.constantFrom('coupon', 'customer', 'nope').map((key) => ({ input: { exists: [{ key, value: true }] } })),
  fc.tuple(fc.constantFrom('like', ...TEXT_OPERATOR_NAMES.filter((op) => TEXT_OPERATORS[op].pattern)), fc.constantFrom('*no*such*', 'flow-?', '*3', 'com.', 'x'), fc.constantFrom('name', 'namespace', 'id')).map(([op, value, field]) => ({ [field]: { [op]: value } })),
  fc.constantFrom('RUNNING', 'FAULTED', 'COMPLETED').map((status) => ({ status: { eq: status } })),
  fc.constantFrom({ startDate: { gte: '2026-04-10T00:00:00Z' } }, { duration: { gt: 30_000 } }, { endDate: { isNull: true } }),
  fc.tuple(fc.constantFrom('taskName', 'taskPosition'), fc.constantFrom('charge', 'no-such-task', 'do/1/reserve')).map(([field, value]) => ({ taskExecutions: { [field]: { ne: value } } })),
  fc.constantFrom('FAULTED', 'nope').map((status) => ({ taskExecutions: { status: { eq: status }, inputArgs: { eq: [{ key: 'step', value: '3' }] } } })),
);

/** Leaves combined by and/or/not, at most `conditions` of them. */
function combined(leaves: readonly Filter[], nots: readonly boolean[]): Filter {
  const wrapped = leaves.map((leaf, i) => (nots[i] === true ? { not: leaf } : leaf));
  return wrapped.length === 1 ? (wrapped[0] as Filter) : { or: [{ and: wrapped.slice(0, Math.ceil(wrapped.length / 2)) }, ...wrapped.slice(Math.ceil(wrapped.length / 2))] };
}

/** A filter `levels` deep (and/or alternating) around `inner`: GRAPHQL_MAX_FILTER_DEPTH counts each level. */
function deep(inner: Filter, levels: number): Filter {
  let node = inner;
  for (let level = 0; level < levels; level++) node = level % 2 === 0 ? { and: [node] } : { or: [node, { name: { eq: 'no-such-workflow' } }] };
  return node;
}

/** A run filter at one of the edges: one big leaf, many leaves (up to the condition limit), or a deep chain. */
export const runFilter: fc.Arbitrary<Filter> = fc.oneof(
  { weight: 4, arbitrary: runLeaf },
  fc.tuple(fc.array(runLeaf, { minLength: 2, maxLength: 12 }), fc.array(fc.boolean(), { maxLength: 12 })).map(([leaves, nots]) => combined(leaves, nots)),
  fc.tuple(runLeaf, fc.integer({ min: 1, max: 20 })).map(([leaf, copies]) => ({ or: range(copies).map(() => leaf) })),
  fc.tuple(runLeaf, fc.integer({ min: 8, max: EDGE.depth - 2 })).map(([leaf, levels]) => deep(leaf, levels)),
  fc.constantFrom(...[49, 99].map((n) => ({ or: range(n).map((i) => ({ name: { like: `*no-such-${i}*` } })) }))),
  fc.constantFrom(...[49, 99].map((n) => ({ or: range(n).map((i) => ({ input: { eq: [{ key: 'customer.id', value: `no-such-${i}` }] } })) }))),
  fc.constantFrom(...[20, 99].map((n) => ({ or: range(n).map((i) => ({ taskExecutions: { taskName: { ne: `no-such-${i}` } } })) }))),
);

const FIELDS = [
  { root: 'getWorkflowInstances', list: true, selection: 'id status startDate', tasks: true },
  { root: 'countWorkflowInstances', list: false, selection: 'value exact', tasks: false },
  { root: 'workflowInstanceStatusCounts', list: false, selection: 'status count { value exact }', tasks: false },
] as const;

interface Alias {
  readonly field: (typeof FIELDS)[number];
  readonly limit: number | null;
  readonly offset: number | null;
  readonly tasks: boolean;
  readonly own: Filter | null;
}

const alias: fc.Arbitrary<Alias> = fc.record({
  field: fc.constantFrom(...FIELDS),
  limit: fc.constantFrom(null, 0, 5, 100, EDGE.maxLimit),
  offset: fc.constantFrom(null, 0, 1000, 100_000),
  tasks: fc.boolean(),
  own: fc.option(runFilter, { freq: 3 }),
});

/** A whole request: 1 to GRAPHQL_MAX_ALIASES root fields, most sharing one filter variable. */
export const edgeRequest: fc.Arbitrary<EdgeRequest> = fc
  .tuple(runFilter, fc.array(alias, { minLength: 1, maxLength: 4 }), fc.constantFrom(1, 2, 7, EDGE.aliases))
  .map(([shared, aliases, copies]) => {
    const fields = range(copies).map((i) => aliases[i % aliases.length] as Alias);
    const variables: Record<string, unknown> = { shared };
    const text = fields.map((a, i) => {
      let filter = '$shared';
      if (a.own !== null && i % 3 === 1) {
        variables[`f${i}`] = a.own;
        filter = `$f${i}`;
      }
      const args = [`filter: ${filter}`];
      if (a.field.list) {
        if (a.limit !== null) args.push(`limit: ${a.limit}`);
        if (a.offset !== null) args.push(`offset: ${a.offset}`);
      }
      const selection = a.field.tasks && a.tasks ? `${a.field.selection} taskExecutions { id status }` : a.field.selection;
      return `a${i}: ${a.field.root}(${args.join(', ')}) { ${selection} }`;
    });
    const declarations = Object.keys(variables).map((name) => `$${name}: WorkflowInstanceFilterInput`);
    return { query: `query Edge(${declarations.join(', ')}) { ${text.join(' ')} }`, variables };
  });

/** The heaviest requests the default limits let through, as the issue's probes sent them (within the cost budget). */
export function heaviestLegalRequests(): EdgeRequest[] {
  const nobody = nothing('nobody')(EDGE.inValues);
  const jsonIn = (values: readonly string[]) => ({ input: { in: [{ key: 'customer.name', values }] } });
  const aliases = (n: number, field: string) => `query Heavy($f: WorkflowInstanceFilterInput) { ${range(n).map((i) => `a${i}: ${field}`).join(' ')} }`;
  return [
    { query: aliases(1, 'getWorkflowInstances(filter: $f, limit: 5) { id }'), variables: { f: jsonIn(nobody) } },
    { query: aliases(6, 'getWorkflowInstances(filter: $f, limit: 5) { id }'), variables: { f: jsonIn(nobody.slice(0, 2500)) } },
    { query: aliases(1, 'getWorkflowInstances(limit: 1000, filter: $f) { id name status startDate endDate taskExecutions { id status } }'), variables: { f: { status: { ne: 'SUSPENDED' } } } },
    { query: aliases(30, 'getWorkflowInstances(filter: $f, limit: 5) { id }'), variables: { f: { or: range(4).map((i) => ({ name: { like: `*no-such-${i}*` } })) } } },
  ];
}
