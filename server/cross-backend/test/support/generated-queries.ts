// Generated list queries for the cross-backend comparison: filters (every operator of every field, nested and/or/not),
// orderBy objects with keys in any order and direction, limits and offsets, over values taken from the data itself
// (so filters match something) plus values that match nothing, wildcard and LIKE syntax, and characters beyond U+FFFF.
import fc from 'fast-check';
import { TEXT_OPERATOR_NAMES, type TextOperator } from '@workflow-index/core';

type Json = unknown;

export interface ValuePools {
  readonly strings: Readonly<Record<string, readonly string[]>>;
  readonly times: readonly string[];
  readonly statuses: readonly string[];
  readonly taskStatuses: readonly string[];
  readonly errorStatuses: readonly number[];
  readonly jsonPairs: readonly { key: string; value: string }[];
}

/** Values of the served rows (as GraphQL returned them), to build filters from. */
export function valuePools(instances: readonly Record<string, Json>[], tasks: readonly Record<string, Json>[]): ValuePools {
  const pick = (rows: readonly Record<string, Json>[], field: string): string[] =>
    [...new Set(rows.map((r) => r[field]).filter((v): v is string => typeof v === 'string'))];
  const errors = [...instances, ...tasks].map((r) => r['error']).filter((e): e is Record<string, Json> => e !== null && typeof e === 'object');
  const jsonPairs: { key: string; value: string }[] = [];
  for (const row of [...instances, ...tasks]) {
    for (const field of ['inputData', 'outputData']) {
      const text = row[field];
      if (typeof text !== 'string') continue;
      walk(JSON.parse(text) as Json, [], jsonPairs);
    }
  }
  return {
    strings: {
      id: pick(instances, 'id'), name: pick(instances, 'name'), namespace: pick(instances, 'namespace'), version: pick(instances, 'version'),
      taskId: pick(tasks, 'id'), workflowInstanceId: pick(tasks, 'workflowInstanceId'), taskName: pick(tasks, 'taskName'), taskPosition: pick(tasks, 'taskPosition'),
      type: pick(errors, 'type'), title: pick(errors, 'title'), detail: pick(errors, 'detail'), instance: pick(errors, 'instance'),
    },
    times: [...new Set([...instances, ...tasks].flatMap((r) => [r['startDate'], r['endDate'], r['lastUpdate']]).filter((v): v is string => typeof v === 'string'))],
    statuses: ['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'],
    taskStatuses: [...new Set([...pick(tasks, 'status'), 'FAILED', 'nope'])],
    errorStatuses: [...new Set(errors.map((e) => e['status']).filter((v): v is number => typeof v === 'number'))],
    jsonPairs: jsonPairs.slice(0, 400),
  };
}

function walk(value: Json, path: string[], out: { key: string; value: string }[]): void {
  if (value === null || path.length > 4) return;
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, String(i)], out));
  else if (typeof value === 'object') for (const [k, v] of Object.entries(value as Record<string, Json>)) { if (!k.includes('.')) walk(v, [...path, k], out); }
  else if (path.length > 0) out.push({ key: path.join('.'), value: String(value) });
}

const EXTRA_STRINGS = ['', 'nothing-matches', '😀', '*', '?', '%', '_', '\\', 'a*b', 'Order'];

function stringValue(pool: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof({ weight: 4, arbitrary: pool.length > 0 ? fc.constantFrom(...pool) : fc.constant('x') }, { weight: 1, arbitrary: fc.constantFrom(...EXTRA_STRINGS) });
}

/** A like pattern made from a value: a prefix/suffix/infix with `*`, a character replaced by `?`. */
function likeFrom(pool: readonly string[]): fc.Arbitrary<string> {
  return fc.tuple(stringValue(pool), fc.nat(), fc.constantFrom('prefix', 'suffix', 'infix', 'one', 'exact')).map(([v, n, kind]) => {
    const chars = [...v];
    const cut = chars.length === 0 ? 0 : n % chars.length;
    if (kind === 'prefix') return `${chars.slice(0, cut).join('')}*`;
    if (kind === 'suffix') return `*${chars.slice(cut).join('')}`;
    if (kind === 'infix') return `*${chars.slice(cut, cut + 2).join('')}*`;
    if (kind === 'one' && chars.length > 0) return [...chars.slice(0, cut), '?', ...chars.slice(cut + 1)].join('');
    return v;
  });
}

/** A text operator's operand, from a value the data holds (so that it matches some rows). */
const TEXT_OPERAND: Readonly<Record<TextOperator, (value: string) => string>> = {
  eq: (v) => v,
  ne: (v) => v,
  contains: (v) => [...v].slice(1, 3).join(''),
  startsWith: (v) => [...v].slice(0, 2).join(''),
  endsWith: (v) => [...v].slice(-2).join(''),
};

function stringFilter(pool: readonly string[]): fc.Arbitrary<Record<string, Json>> {
  return fc.oneof(
    ...TEXT_OPERATOR_NAMES.map((op) => stringValue(pool).map((v) => ({ [op]: TEXT_OPERAND[op](v) }))),
    // a null item (the Java schema's [String]) is skipped: it equals no value
    fc.array(fc.option(stringValue(pool), { nil: null, freq: 6 }), { maxLength: 3 }).map((v) => ({ in: v })),
    likeFrom(pool).map((v) => ({ like: v })),
    fc.boolean().map((v) => ({ isNull: v })),
    fc.tuple(stringValue(pool), fc.boolean()).map(([v, n]) => ({ ne: v, isNull: n })),
  );
}

function timeFilter(times: readonly string[]): fc.Arbitrary<Record<string, Json>> {
  const t = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...(times.length > 0 ? times : ['2026-05-12T09:00:00Z'])) }, { weight: 1, arbitrary: fc.constantFrom('2026-05-12T11:00:00+02:00', '1999-01-01T00:00:00Z') });
  return fc.oneof(
    fc.tuple(fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte'), t).map(([op, v]) => ({ [op]: v })),
    fc.tuple(t, t).map(([a, b]) => ({ between: { from: a < b ? a : b, to: a < b ? b : a } })),
    fc.boolean().map((v) => ({ isNull: v })),
  );
}

function errorFilter(p: ValuePools): fc.Arbitrary<Record<string, Json>> {
  const statuses = p.errorStatuses.length > 0 ? p.errorStatuses : [500];
  return fc.oneof(
    stringFilter(p.strings['type'] ?? []).map((f) => ({ type: f })),
    stringFilter(p.strings['title'] ?? []).map((f) => ({ title: f })),
    stringFilter(p.strings['detail'] ?? []).map((f) => ({ detail: f })),
    stringFilter(p.strings['instance'] ?? []).map((f) => ({ instance: f })),
    fc.tuple(fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte'), fc.constantFrom(...statuses, 0)).map(([op, v]) => ({ status: { [op]: v } })),
    fc.array(fc.constantFrom(...statuses, 1, null), { maxLength: 3 }).map((v) => ({ status: { in: v } })),
  );
}

function jsonFilter(p: ValuePools): fc.Arbitrary<Record<string, Json>> {
  const pairs = p.jsonPairs.length > 0 ? p.jsonPairs : [{ key: 'a', value: '1' }];
  const pair = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...pairs) }, { weight: 1, arbitrary: fc.constantFrom({ key: 'missing', value: '1' }, { key: 'a', value: '1.0' }, { key: 'amount', value: '1E3' }) });
  // a null pair (the Java schema's [JsonFieldFilterInput]) places no condition
  return fc.array(fc.option(pair, { nil: null, freq: 6 }), { minLength: 1, maxLength: 2 }).map((eq) => ({ eq }));
}

export function instanceFilter(p: ValuePools): fc.Arbitrary<Record<string, Json>> {
  const s = p.strings;
  const leaf = fc.oneof(
    stringFilter(s['id'] ?? []).map((f) => ({ id: f })),
    stringFilter(s['name'] ?? []).map((f) => ({ name: f })),
    stringFilter(s['namespace'] ?? []).map((f) => ({ namespace: f })),
    stringFilter(s['version'] ?? []).map((f) => ({ version: f })),
    fc.oneof(
      fc.constantFrom(...p.statuses).map((v) => ({ eq: v })),
      fc.constantFrom(...p.statuses).map((v) => ({ ne: v })),
      fc.subarray([...p.statuses]).map((v) => ({ in: v })),
    ).map((f) => ({ status: f })),
    fc.tuple(fc.constantFrom('startDate', 'endDate', 'lastUpdate', 'startTime', 'endTime'), timeFilter(p.times)).map(([k, f]) => ({ [k]: f })),
    fc.tuple(fc.constantFrom('input', 'output'), jsonFilter(p)).map(([k, f]) => ({ [k]: f })),
    errorFilter(p).map((f) => ({ error: f })),
  );
  return combine(leaf);
}

export function taskFilter(p: ValuePools): fc.Arbitrary<Record<string, Json>> {
  const s = p.strings;
  const leaf = fc.oneof(
    stringFilter(s['taskId'] ?? []).map((f) => ({ id: f })),
    stringFilter(s['workflowInstanceId'] ?? []).map((f) => ({ workflowInstanceId: f })),
    stringFilter(s['taskName'] ?? []).map((f) => ({ taskName: f })),
    stringFilter(s['taskPosition'] ?? []).map((f) => ({ taskPosition: f })),
    fc.oneof(
      fc.constantFrom(...p.taskStatuses).map((v) => ({ eq: v })),
      fc.constantFrom(...p.taskStatuses).map((v) => ({ ne: v })),
      fc.subarray([...p.taskStatuses]).map((v) => ({ in: v })),
    ).map((f) => ({ status: f })),
    fc.tuple(fc.constantFrom('startDate', 'endDate', 'enter', 'exit'), timeFilter(p.times)).map(([k, f]) => ({ [k]: f })),
    fc.tuple(fc.constantFrom('inputArgs', 'outputArgs'), jsonFilter(p)).map(([k, f]) => ({ [k]: f })),
    errorFilter(p).map((f) => ({ error: f })),
  );
  return combine(leaf);
}

function combine(leaf: fc.Arbitrary<Record<string, Json>>): fc.Arbitrary<Record<string, Json>> {
  const { tree } = fc.letrec<{ tree: Record<string, Json> }>((self) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 4, arbitrary: leaf },
      { weight: 1, arbitrary: fc.tuple(leaf, leaf).map(([a, b]) => ({ ...a, ...b })) },
      { weight: 1, arbitrary: fc.array(self('tree'), { maxLength: 3 }).map((and) => ({ and })) },
      { weight: 1, arbitrary: fc.array(self('tree'), { maxLength: 3 }).map((or) => ({ or })) },
      { weight: 1, arbitrary: self('tree').map((not) => ({ not })) },
    ),
  }));
  return tree;
}

export function orderBy(fields: readonly string[]): fc.Arbitrary<Record<string, 'ASC' | 'DESC'>> {
  return fc.uniqueArray(fc.tuple(fc.constantFrom(...fields), fc.constantFrom<'ASC' | 'DESC'>('ASC', 'DESC')), { maxLength: 3, selector: ([f]) => f })
    .map((keys) => Object.fromEntries(keys));
}

export const INSTANCE_ORDER_FIELDS = ['id', 'name', 'namespace', 'version', 'status', 'startDate', 'endDate', 'lastUpdate', 'startTime', 'endTime'];
export const TASK_ORDER_FIELDS = ['id', 'taskName', 'taskPosition', 'status', 'startDate', 'endDate', 'enter', 'exit'];
