// Generated filters beyond field conditions for the cross-backend comparison: durations, JSON operators beyond
// eq, task filters on the run (workflowName / workflowNamespace / workflowVersion), instances filtered by their tasks
// (taskExecutions, nested in and/or/not), mixed with the contract's filters (generated-queries.ts).
import fc from 'fast-check';
import { INSTANCE_ORDER_FIELDS, instanceFilter, TASK_ORDER_FIELDS, taskFilter, type ValuePools } from './generated-queries.js';

type Filter = Record<string, unknown>;

function durationFilter(): fc.Arbitrary<Filter> {
  const ms = fc.oneof(fc.constantFrom(0, 1, 3.572, 3.5715, 12.87, 1000, 2081.614, 5006.43), fc.integer({ min: 0, max: 60_000_000 }).map((us) => us / 1000));
  return fc.oneof(
    fc.tuple(fc.constantFrom('gt', 'gte', 'lt', 'lte'), ms).map(([op, v]) => ({ [op]: v })),
    fc.tuple(ms, ms).map(([a, b]) => ({ gte: Math.min(a, b), lt: Math.max(a, b) })),
    fc.boolean().map((v) => ({ isNull: v })),
  );
}

const EXTRA_VALUES = ['0', '-1', '1e3', '2.5', '1000.0', '', 'ORD', 'true', '2026-06-01', 'Z', '😀'];

function jsonOperators(p: ValuePools): fc.Arbitrary<Filter> {
  const pairs = p.jsonPairs.length > 0 ? p.jsonPairs : [{ key: 'a', value: '1' }];
  const key = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...pairs.map((x) => x.key)) }, { weight: 1, arbitrary: fc.constantFrom('missing', 'customer', 'items', '0') });
  const value = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pairs.map((x) => x.value)) }, { weight: 2, arbitrary: fc.constantFrom(...EXTRA_VALUES) });
  const cut = (v: string, n: number): string => [...v].slice(n % 3, (n % 3) + 3).join('');
  return fc.oneof(
    fc.tuple(fc.constantFrom('ne', 'gt', 'gte', 'lt', 'lte'), key, value).map(([op, k, v]) => ({ [op]: [{ key: k, value: v }] })),
    fc.tuple(key, value, fc.nat()).map(([k, v, n]) => ({ contains: [{ key: k, value: cut(v, n) }] })),
    fc.tuple(key, fc.array(value, { maxLength: 3 })).map(([k, values]) => ({ in: [{ key: k, values }] })),
    fc.tuple(key, fc.boolean()).map(([k, v]) => ({ exists: [{ key: k, value: v }] })),
  );
}

function tree(leaf: fc.Arbitrary<Filter>): fc.Arbitrary<Filter> {
  const { node } = fc.letrec<{ node: Filter }>((self) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 4, arbitrary: leaf },
      { weight: 1, arbitrary: fc.array(self('node'), { maxLength: 3 }).map((and) => ({ and })) },
      { weight: 1, arbitrary: fc.array(self('node'), { maxLength: 3 }).map((or) => ({ or })) },
      { weight: 1, arbitrary: self('node').map((not) => ({ not })) },
    ),
  }));
  return node;
}

export function lookupTaskFilter(p: ValuePools): fc.Arbitrary<Filter> {
  const s = p.strings;
  const run = (pool: readonly string[]): fc.Arbitrary<unknown> =>
    fc.oneof(
      fc.constantFrom(...(pool.length > 0 ? pool : ['x']), 'nothing'),
      fc.constantFrom(...(pool.length > 0 ? pool : ['x'])).map((v) => ({ like: `${[...v].slice(0, 3).join('')}*` })),
      fc.boolean().map((v) => ({ isNull: v })),
      fc.subarray([...pool.slice(0, 6)]).map((v) => ({ in: v })),
    );
  const leaf = fc.oneof(
    { weight: 2, arbitrary: taskFilter(p) },
    { weight: 1, arbitrary: durationFilter().map((duration) => ({ duration })) },
    { weight: 1, arbitrary: run(s['name'] ?? []).map((workflowName) => ({ workflowName })) },
    { weight: 1, arbitrary: run(s['namespace'] ?? []).map((workflowNamespace) => ({ workflowNamespace })) },
    { weight: 1, arbitrary: run(s['version'] ?? []).map((workflowVersion) => ({ workflowVersion })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('inputArgs', 'outputArgs'), jsonOperators(p)).map(([k, f]) => ({ [k]: f })) },
  );
  return tree(leaf);
}

export function lookupInstanceFilter(p: ValuePools): fc.Arbitrary<Filter> {
  const leaf = fc.oneof(
    { weight: 2, arbitrary: instanceFilter(p) },
    { weight: 1, arbitrary: durationFilter().map((duration) => ({ duration })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('input', 'output'), jsonOperators(p)).map(([k, f]) => ({ [k]: f })) },
    { weight: 2, arbitrary: lookupTaskFilter(p).map((taskExecutions) => ({ taskExecutions })) },
  );
  return tree(leaf);
}

export const LOOKUP_INSTANCE_ORDER_FIELDS = [...INSTANCE_ORDER_FIELDS, 'duration', 'duration'];
export const LOOKUP_TASK_ORDER_FIELDS = [...TASK_ORDER_FIELDS, 'duration', 'duration'];
