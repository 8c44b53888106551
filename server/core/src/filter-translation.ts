// GraphQL filter inputs (already coerced by graphql-js, shorthand already expanded) → the
// backend-neutral filter tree of reader.ts. All validation that the schema types cannot express
// happens here, so backends receive only well-formed trees.
import { checkClientText, excerpt } from './client-text.js';
import { badUserInput } from './errors.js';
import { parseLikePattern } from './like-pattern.js';
import type {
  DurationPredicate,
  FilterNode,
  InstanceFilter,
  TaskFilter,
  InstanceStringField,
  InstanceTimeField,
  IntPredicate,
  JsonField,
  JsonPredicate,
  StringPredicate,
  TaskStringField,
  TaskTimeField,
  TimePredicate,
  Timestamp,
} from './reader.js';
import { TEXT_OPERATOR_NAMES, TEXT_OPERATORS, type TextOperator } from './text-operators.js';

type Maybe<T> = T | null | undefined;

export type StringFilterArg = { readonly [op in TextOperator]?: Maybe<string> } & {
  readonly like?: Maybe<string>;
  readonly in?: Maybe<readonly Maybe<string>[]>;
  readonly isNull?: Maybe<boolean>;
};
export interface DateTimeFilterArg {
  readonly eq?: Maybe<Timestamp>;
  readonly ne?: Maybe<Timestamp>;
  readonly gt?: Maybe<Timestamp>;
  readonly gte?: Maybe<Timestamp>;
  readonly lt?: Maybe<Timestamp>;
  readonly lte?: Maybe<Timestamp>;
  readonly between?: Maybe<{ readonly from: Timestamp; readonly to: Timestamp }>;
  readonly isNull?: Maybe<boolean>;
}
export interface IntFilterArg {
  readonly eq?: Maybe<number>;
  readonly ne?: Maybe<number>;
  readonly gt?: Maybe<number>;
  readonly gte?: Maybe<number>;
  readonly lt?: Maybe<number>;
  readonly lte?: Maybe<number>;
  readonly in?: Maybe<readonly Maybe<number>[]>;
}
export interface StatusFilterArg {
  readonly eq?: Maybe<string>;
  readonly ne?: Maybe<string>;
  readonly in?: Maybe<readonly Maybe<string>[]>;
}
export interface ErrorFilterArg {
  readonly type?: Maybe<StringFilterArg>;
  readonly title?: Maybe<StringFilterArg>;
  readonly detail?: Maybe<StringFilterArg>;
  readonly status?: Maybe<IntFilterArg>;
  readonly instance?: Maybe<StringFilterArg>;
}
/** key and value are nullable in the schema only so that variables declared `String` (as the Java schema has them) fit. */
interface JsonPairArg {
  readonly key?: Maybe<string>;
  readonly value?: Maybe<string>;
}
/** Every list takes null items (the Java schema's `[JsonFieldFilterInput]`): they are skipped. */
export interface JsonFilterArg {
  readonly eq?: Maybe<readonly Maybe<JsonPairArg>[]>;
  readonly ne?: Maybe<readonly Maybe<JsonPairArg>[]>;
  readonly gt?: Maybe<readonly Maybe<JsonPairArg>[]>;
  readonly gte?: Maybe<readonly Maybe<JsonPairArg>[]>;
  readonly lt?: Maybe<readonly Maybe<JsonPairArg>[]>;
  readonly lte?: Maybe<readonly Maybe<JsonPairArg>[]>;
  readonly contains?: Maybe<readonly Maybe<JsonPairArg>[]>;
  readonly in?: Maybe<readonly Maybe<{ readonly key: string; readonly values: readonly Maybe<string>[] }>[]>;
  readonly exists?: Maybe<readonly Maybe<{ readonly key: string; readonly value: boolean }>[]>;
}
export interface DurationFilterArg {
  readonly gt?: Maybe<number>;
  readonly gte?: Maybe<number>;
  readonly lt?: Maybe<number>;
  readonly lte?: Maybe<number>;
  readonly isNull?: Maybe<boolean>;
}
export interface InstanceFilterArg {
  readonly id?: Maybe<StringFilterArg>;
  readonly name?: Maybe<StringFilterArg>;
  readonly namespace?: Maybe<StringFilterArg>;
  readonly version?: Maybe<StringFilterArg>;
  readonly status?: Maybe<StatusFilterArg>;
  readonly startTime?: Maybe<DateTimeFilterArg>;
  readonly endTime?: Maybe<DateTimeFilterArg>;
  readonly startDate?: Maybe<DateTimeFilterArg>;
  readonly endDate?: Maybe<DateTimeFilterArg>;
  readonly lastUpdate?: Maybe<DateTimeFilterArg>;
  readonly input?: Maybe<JsonFilterArg>;
  readonly output?: Maybe<JsonFilterArg>;
  readonly error?: Maybe<ErrorFilterArg>;
  readonly duration?: Maybe<DurationFilterArg>;
  readonly taskExecutions?: Maybe<TaskFilterArg>;
  readonly and?: Maybe<readonly InstanceFilterArg[]>;
  readonly or?: Maybe<readonly InstanceFilterArg[]>;
  readonly not?: Maybe<InstanceFilterArg>;
}
export interface TaskFilterArg {
  readonly id?: Maybe<StringFilterArg>;
  readonly workflowInstanceId?: Maybe<StringFilterArg>;
  readonly taskName?: Maybe<StringFilterArg>;
  readonly taskPosition?: Maybe<StringFilterArg>;
  readonly status?: Maybe<StatusFilterArg>;
  readonly enter?: Maybe<DateTimeFilterArg>;
  readonly exit?: Maybe<DateTimeFilterArg>;
  readonly startDate?: Maybe<DateTimeFilterArg>;
  readonly endDate?: Maybe<DateTimeFilterArg>;
  readonly inputArgs?: Maybe<JsonFilterArg>;
  readonly outputArgs?: Maybe<JsonFilterArg>;
  readonly error?: Maybe<ErrorFilterArg>;
  readonly duration?: Maybe<DurationFilterArg>;
  readonly workflowName?: Maybe<StringFilterArg>;
  readonly workflowNamespace?: Maybe<StringFilterArg>;
  readonly workflowVersion?: Maybe<StringFilterArg>;
  readonly and?: Maybe<readonly TaskFilterArg[]>;
  readonly or?: Maybe<readonly TaskFilterArg[]>;
  readonly not?: Maybe<TaskFilterArg>;
}

/** Task statuses a filter may name; FAILED (what producers emit) is stored and served as FAULTED. */
export const TASK_STATUSES = ['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'] as const;

type Node<S extends string, T extends string> = FilterNode<S, T>;

function all<S extends string, T extends string>(nodes: Node<S, T>[]): Node<S, T> {
  return nodes.length === 1 && nodes[0] !== undefined ? nodes[0] : { kind: 'and', nodes };
}

function isSet<V>(value: Maybe<V>): value is V {
  return value !== null && value !== undefined;
}

/**
 * The values of the `in` list at `where` with each one's index in the list, refused when the list holds more than
 * `maxValues` items (GRAPHQL_MAX_FILTER_IN_VALUES). A null item is skipped: it equals no value (as SQL's `IN (…, NULL)`
 * on the Java Data Index), so `in: [null]` matches nothing, like `in: []`. The schema's lists take null items so that
 * variables declared as the Java schema declares them (`[String]`) fit.
 */
function checkInList<V>(values: readonly Maybe<V>[], where: string, maxValues: number): { readonly value: V; readonly index: number }[] {
  if (values.length > maxValues) {
    throw badUserInput(
      `${where} has ${values.length} values; an in list may hold at most ${maxValues} (GRAPHQL_MAX_FILTER_IN_VALUES): split the query, or filter on something the values share`,
    );
  }
  const out: { value: V; index: number }[] = [];
  values.forEach((value, index) => {
    if (isSet(value)) out.push({ value, index });
  });
  return out;
}

/** The items of a JSON operator's list with their indexes; null items are skipped (no condition). */
function presentItems<V>(items: Maybe<readonly Maybe<V>[]>): { readonly item: V; readonly index: number }[] {
  const out: { item: V; index: number }[] = [];
  (items ?? []).forEach((item, index) => {
    if (isSet(item)) out.push({ item, index });
  });
  return out;
}

/** A JSON pair's key or value: nullable in the schema (the Java schema's `String`), required here. */
function required(value: Maybe<string>, where: string, what: string): string {
  if (isSet(value)) return value;
  throw badUserInput(`${where} is required: a {key, value} pair of a JSON filter needs both, ${what}`);
}

function stringLeaves<S extends string, T extends string>(
  field: S,
  arg: Maybe<StringFilterArg>,
  path: string,
  maxIn: number,
  normalize: (value: string) => string = (v) => v,
  label: string = field,
): Node<S, T>[] {
  if (!isSet(arg)) return [];
  const out: Node<S, T>[] = [];
  const leaf = (predicate: StringPredicate): void => {
    out.push({ kind: 'string', field, predicate });
  };
  for (const op of TEXT_OPERATOR_NAMES) {
    const value = arg[op];
    if (isSet(value)) {
      checkClientText(value, `${path}${label}.${op}`);
      leaf({ op, value: TEXT_OPERATORS[op].normalized ? normalize(value) : value });
    }
  }
  if (isSet(arg.in)) leaf({ op: 'in', values: checkInList(arg.in, `${path}${label}.in`, maxIn).map(({ value, index }) => normalize(checkClientText(value, `${path}${label}.in[${index}]`))) });
  if (isSet(arg.like)) {
    const like = checkClientText(arg.like, `${path}${label}.like`);
    leaf({ op: 'like', pattern: parseLikePattern(like.startsWith('*') || like.startsWith('?') ? like : normalize(like)) });
  }
  if (isSet(arg.isNull)) leaf({ op: 'isNull', value: arg.isNull });
  return out;
}

function timeLeaves<S extends string, T extends string>(field: T, arg: Maybe<DateTimeFilterArg>): Node<S, T>[] {
  if (!isSet(arg)) return [];
  const out: Node<S, T>[] = [];
  const leaf = (predicate: TimePredicate): void => {
    out.push({ kind: 'time', field, predicate });
  };
  for (const op of ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const) {
    const value = arg[op];
    if (isSet(value)) leaf({ op, value });
  }
  if (isSet(arg.between)) leaf({ op: 'between', from: arg.between.from, to: arg.between.to });
  if (isSet(arg.isNull)) leaf({ op: 'isNull', value: arg.isNull });
  return out;
}

function intLeaves<S extends string, T extends string>(arg: Maybe<IntFilterArg>, where: string, maxIn: number): Node<S, T>[] {
  if (!isSet(arg)) return [];
  const out: Node<S, T>[] = [];
  const leaf = (predicate: IntPredicate): void => {
    out.push({ kind: 'int', field: 'error.status', predicate });
  };
  for (const op of ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const) {
    const value = arg[op];
    if (isSet(value)) leaf({ op, value });
  }
  if (isSet(arg.in)) leaf({ op: 'in', values: checkInList(arg.in, `${where}.in`, maxIn).map(({ value }) => value) });
  return out;
}

function statusLeaves<S extends string, T extends string>(
  field: S,
  arg: Maybe<StatusFilterArg>,
  where: string,
  maxIn: number,
  normalize: (value: string, op: string) => string,
): Node<S, T>[] {
  if (!isSet(arg)) return [];
  const out: Node<S, T>[] = [];
  for (const op of ['eq', 'ne'] as const) {
    const value = arg[op];
    if (isSet(value)) out.push({ kind: 'string', field, predicate: { op, value: normalize(value, op) } });
  }
  if (isSet(arg.in)) out.push({ kind: 'string', field, predicate: { op: 'in', values: checkInList(arg.in, `${where}.in`, maxIn).map(({ value }) => normalize(value, 'in')) } });
  return out;
}

function jsonLeaves<S extends string, T extends string>(field: JsonField, graphqlName: string, arg: Maybe<JsonFilterArg>, path: string, maxIn: number): Node<S, T>[] {
  if (!isSet(arg)) return [];
  const out: Node<S, T>[] = [];
  const keyOf = (key: Maybe<string>, where: string): string[] =>
    parseJsonKey(checkClientText(required(key, `${where}.key`, 'the key a dot path such as customer.id'), `${where}.key`), `${where}.key`);
  const pairValue = (value: Maybe<string>, where: string): string =>
    checkClientText(required(value, where, 'the value a string such as "42" or "gold"'), where);
  const operand = (value: string, where: string): string => checkJsonNumber(checkClientText(value, where), where);
  presentItems(arg.eq).forEach(({ item: pair, index: i }) => {
    const where = `${path}${graphqlName}.eq[${i}]`;
    const key = keyOf(pair.key, where);
    out.push({ kind: 'json', field, path: key, value: operand(pairValue(pair.value, `${where}.value`), `${where}.value`) });
  });
  const op = (predicate: JsonPredicate, keyPath: string[]): void => {
    out.push({ kind: 'jsonOp', field, path: keyPath, predicate });
  };
  for (const name of ['ne', 'gt', 'gte', 'lt', 'lte', 'contains'] as const) {
    presentItems(arg[name]).forEach(({ item: pair, index: i }) => {
      const where = `${path}${graphqlName}.${name}[${i}]`;
      const key = keyOf(pair.key, where);
      const text = pairValue(pair.value, `${where}.value`);
      // contains is literal text: a number-looking operand is not a number there.
      const value = name === 'contains' ? text : operand(text, `${where}.value`);
      op({ op: name, value }, key);
    });
  }
  presentItems(arg.in).forEach(({ item: pair, index: i }) => {
    const where = `${path}${graphqlName}.in[${i}]`;
    op({ op: 'in', values: checkInList(pair.values, `${where}.values`, maxIn).map(({ value, index: j }) => operand(value, `${where}.values[${j}]`)) }, keyOf(pair.key, where));
  });
  presentItems(arg.exists).forEach(({ item: pair, index: i }) => {
    op({ op: 'exists', value: pair.value }, keyOf(pair.key, `${path}${graphqlName}.exists[${i}]`));
  });
  return out;
}

/** Durations are compared in microseconds: beyond this many milliseconds (about 285 years) they are no longer exact. */
export const MAX_DURATION_MS = 9e12;

function durationLeaves<S extends string, T extends string>(arg: Maybe<DurationFilterArg>, path: string): Node<S, T>[] {
  if (!isSet(arg)) return [];
  const out: Node<S, T>[] = [];
  const leaf = (predicate: DurationPredicate): void => {
    out.push({ kind: 'duration', predicate });
  };
  for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
    const value = arg[op];
    if (!isSet(value)) continue;
    if (!Number.isFinite(value) || Math.abs(value) > MAX_DURATION_MS) {
      throw badUserInput(`${path}duration.${op} must be a number of milliseconds between -${MAX_DURATION_MS} and ${MAX_DURATION_MS} (fractions down to microseconds, e.g. 1500 or 2.25); got ${value}`);
    }
    leaf({ op, value });
  }
  if (isSet(arg.isNull)) leaf({ op: 'isNull', value: arg.isNull });
  return out;
}

// RFC 8259's number grammar: such a value is also compared as a number (CONTRACT.md, JSON filters).
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const MAX_NUMBER_LENGTH = 1000;

/**
 * A value written as a JSON number must be one every backend can compare: a finite double that does not
 * underflow to 0, in at most 1000 characters (PostgreSQL's numeric rejects longer fractions outright).
 */
function checkJsonNumber(value: string, where: string): string {
  if (!JSON_NUMBER.test(value)) return value;
  const number = Number(value);
  const mantissaIsZero = !/[1-9]/.test(value.replace(/[eE].*$/, ''));
  if (value.length <= MAX_NUMBER_LENGTH && Number.isFinite(number) && (number !== 0 || mantissaIsZero)) return value;
  throw badUserInput(
    `${where} ${excerpt(value)} is a number out of range: JSON filter numbers must be 0 or have a magnitude between 5e-324 and 1.7976931348623157e308, written in at most ${MAX_NUMBER_LENGTH} characters`,
  );
}

/** `a.b.0.c` → ['a', 'b', '0', 'c']; empty segments are rejected. */
export function parseJsonKey(key: string, where = 'key'): string[] {
  const segments = key.split('.');
  if (segments.some((s) => s === '')) {
    throw badUserInput(`${where} must be a dot path of non-empty segments, e.g. customer.address.city or items.0.sku; got ${excerpt(key)}`);
  }
  return segments;
}

type ErrorStringField = 'error.type' | 'error.title' | 'error.detail' | 'error.instance';

function errorLeaves<S extends string, T extends string>(arg: Maybe<ErrorFilterArg>, path: string, maxIn: number): Node<S | ErrorStringField, T>[] {
  if (!isSet(arg)) return [];
  return [
    ...stringLeaves<S | ErrorStringField, T>('error.type', arg.type, path, maxIn),
    ...stringLeaves<S | ErrorStringField, T>('error.title', arg.title, path, maxIn),
    ...stringLeaves<S | ErrorStringField, T>('error.detail', arg.detail, path, maxIn),
    ...intLeaves<S | ErrorStringField, T>(arg.status, `${path}error.status`, maxIn),
    ...stringLeaves<S | ErrorStringField, T>('error.instance', arg.instance, path, maxIn),
  ];
}

/** The bounds of one filter argument (GRAPHQL_MAX_FILTER_DEPTH, _CONDITIONS, _IN_VALUES). */
export interface FilterLimits {
  /** Deepest and/or/not nesting. */
  readonly maxDepth: number;
  /** Most conditions: each operator of a field (eq, in, like, …), each JSON pair and each `not` counts one. */
  readonly maxConditions: number;
  /** Most values of one `in` list (a JSON `in` pair's values included). */
  readonly maxInValues: number;
}

/** The default of GRAPHQL_MAX_FILTER_DEPTH. */
export const DEFAULT_MAX_FILTER_DEPTH = 32;
/**
 * The default of GRAPHQL_MAX_FILTER_CONDITIONS. A condition costs OpenSearch up to about 6 of the 1024 clauses
 * (indices.query.bool.max_clause_count) a query may have (a JSON `ne` 4, a `not` 1 more, the ids of checked
 * documents 1 more): 100 conditions always fit, with room for the keyset and served conditions the reader adds.
 */
export const DEFAULT_MAX_FILTER_CONDITIONS = 100;
/**
 * The default of GRAPHQL_MAX_FILTER_IN_VALUES. OpenSearch's terms query holds at most 65,536 values
 * (index.max_terms_count) and a JSON `in` value becomes up to 2 of them.
 */
export const DEFAULT_MAX_FILTER_IN_VALUES = 10_000;

export const DEFAULT_FILTER_LIMITS: FilterLimits = {
  maxDepth: DEFAULT_MAX_FILTER_DEPTH,
  maxConditions: DEFAULT_MAX_FILTER_CONDITIONS,
  maxInValues: DEFAULT_MAX_FILTER_IN_VALUES,
};

/** Where a filter is translated and how deep its and/or/not may nest. */
interface Walk {
  readonly path: string;
  readonly depth: number;
  readonly limits: FilterLimits;
}

/** The walk one level deeper (and/or/not, a nested relation filter); BAD_USER_INPUT beyond the maximum depth. */
function nested(walk: Walk, suffix: string): Walk {
  const { path, depth, limits } = walk;
  const maxDepth = limits.maxDepth;
  // Backends translate the tree recursively: its depth must stay small whatever the client sends.
  if (depth >= maxDepth) {
    throw badUserInput(`${path}${suffix} is nested in and/or/not more than ${maxDepth} levels deep (GRAPHQL_MAX_FILTER_DEPTH); flatten the filter, e.g. and: [a, b, c] instead of and: [a, {and: [b, c]}]`);
  }
  return { path: `${path}${suffix}.`, depth: depth + 1, limits };
}

function instanceNode(arg: InstanceFilterArg, walk: Walk): InstanceFilter {
  type N = Node<InstanceStringField, InstanceTimeField>;
  const { path } = walk;
  const maxIn = walk.limits.maxInValues;
  const nodes: N[] = [
    ...stringLeaves<InstanceStringField, InstanceTimeField>('id', arg.id, path, maxIn),
    ...stringLeaves<InstanceStringField, InstanceTimeField>('name', arg.name, path, maxIn),
    ...stringLeaves<InstanceStringField, InstanceTimeField>('namespace', arg.namespace, path, maxIn),
    ...stringLeaves<InstanceStringField, InstanceTimeField>('version', arg.version, path, maxIn),
    // The enum type has already restricted the values.
    ...statusLeaves<InstanceStringField, InstanceTimeField>('status', arg.status, `${path}status`, maxIn, (v) => v),
    ...timeLeaves<InstanceStringField, InstanceTimeField>('startDate', arg.startTime),
    ...timeLeaves<InstanceStringField, InstanceTimeField>('endDate', arg.endTime),
    ...timeLeaves<InstanceStringField, InstanceTimeField>('startDate', arg.startDate),
    ...timeLeaves<InstanceStringField, InstanceTimeField>('endDate', arg.endDate),
    ...timeLeaves<InstanceStringField, InstanceTimeField>('lastUpdate', arg.lastUpdate),
    ...jsonLeaves<InstanceStringField, InstanceTimeField>('input', 'input', arg.input, path, maxIn),
    ...jsonLeaves<InstanceStringField, InstanceTimeField>('output', 'output', arg.output, path, maxIn),
    ...errorLeaves<InstanceStringField, InstanceTimeField>(arg.error, path, maxIn),
    ...durationLeaves<InstanceStringField, InstanceTimeField>(arg.duration, path),
  ];
  // "Runs where validateOrder faulted": some task execution of the instance matches.
  if (isSet(arg.taskExecutions)) nodes.push({ kind: 'tasks', node: taskNode(arg.taskExecutions, nested(walk, 'taskExecutions')) });
  return withLogic(nodes, arg, walk, instanceNode);
}

/** The field leaves of one filter object ANDed with its `and` / `or` / `not` combinations, translated recursively. */
function withLogic<S extends string, T extends string, A>(
  nodes: Node<S, T>[],
  arg: { readonly and?: readonly A[] | null | undefined; readonly or?: readonly A[] | null | undefined; readonly not?: A | null | undefined },
  walk: Walk,
  translate: (filter: A, walk: Walk) => Node<S, T>,
): Node<S, T> {
  const inner = (suffix: string): Walk => nested(walk, suffix);
  if (isSet(arg.and)) nodes.push({ kind: 'and', nodes: arg.and.map((f, i) => translate(f, inner(`and[${i}]`))) });
  if (isSet(arg.or)) nodes.push({ kind: 'or', nodes: arg.or.map((f, i) => translate(f, inner(`or[${i}]`))) });
  if (isSet(arg.not)) nodes.push({ kind: 'not', node: translate(arg.not, inner('not')) });
  return all(nodes);
}

/** Stored task positions carry no leading slash; filters accept both spellings. */
export function normalizeTaskPosition(value: string): string {
  return value.startsWith('/') ? value.slice(1) : value;
}

function taskStatus(path: string): (value: string, op: string) => string {
  return (value, op) => {
    if (value === 'FAILED') return 'FAULTED';
    if ((TASK_STATUSES as readonly string[]).includes(value)) return value;
    throw badUserInput(`${path}status.${op} must be one of ${TASK_STATUSES.join(', ')} (FAILED means FAULTED); got ${excerpt(value)}`);
  };
}

function taskNode(arg: TaskFilterArg, walk: Walk): TaskFilter {
  type N = Node<TaskStringField, TaskTimeField>;
  const { path } = walk;
  const maxIn = walk.limits.maxInValues;
  const nodes: N[] = [
    ...stringLeaves<TaskStringField, TaskTimeField>('id', arg.id, path, maxIn),
    ...stringLeaves<TaskStringField, TaskTimeField>('workflowInstanceId', arg.workflowInstanceId, path, maxIn),
    ...stringLeaves<TaskStringField, TaskTimeField>('taskName', arg.taskName, path, maxIn),
    ...stringLeaves<TaskStringField, TaskTimeField>('taskPosition', arg.taskPosition, path, maxIn, normalizeTaskPosition),
    ...statusLeaves<TaskStringField, TaskTimeField>('status', arg.status, `${path}status`, maxIn, taskStatus(path)),
    ...timeLeaves<TaskStringField, TaskTimeField>('startDate', arg.enter),
    ...timeLeaves<TaskStringField, TaskTimeField>('endDate', arg.exit),
    ...timeLeaves<TaskStringField, TaskTimeField>('startDate', arg.startDate),
    ...timeLeaves<TaskStringField, TaskTimeField>('endDate', arg.endDate),
    ...jsonLeaves<TaskStringField, TaskTimeField>('input', 'inputArgs', arg.inputArgs, path, maxIn),
    ...jsonLeaves<TaskStringField, TaskTimeField>('output', 'outputArgs', arg.outputArgs, path, maxIn),
    ...errorLeaves<TaskStringField, TaskTimeField>(arg.error, path, maxIn),
    ...durationLeaves<TaskStringField, TaskTimeField>(arg.duration, path),
  ];
  // The run's definition: a condition on the task's instance (one node, so `not` negates all of it together).
  const run = [
    ...stringLeaves<InstanceStringField, InstanceTimeField>('name', arg.workflowName, path, maxIn, (v) => v, 'workflowName'),
    ...stringLeaves<InstanceStringField, InstanceTimeField>('namespace', arg.workflowNamespace, path, maxIn, (v) => v, 'workflowNamespace'),
    ...stringLeaves<InstanceStringField, InstanceTimeField>('version', arg.workflowVersion, path, maxIn, (v) => v, 'workflowVersion'),
  ];
  if (run.length > 0) nodes.push({ kind: 'instance', node: all(run) });
  return withLogic(nodes, arg, walk, taskNode);
}

function orNull<S extends string, T extends string>(node: Node<S, T>): Node<S, T> | null {
  return node.kind === 'and' && node.nodes.length === 0 ? null : node;
}

/** The conditions of a translated filter: its leaves and its `not`s (a nested relation filter's included). */
export function countConditions(node: FilterNode<string, string>): number {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.nodes.reduce((n, child) => n + countConditions(child), 0);
    case 'not':
      return 1 + countConditions(node.node);
    case 'tasks':
    case 'instance':
      return countConditions(node.node as FilterNode<string, string>);
    default:
      return 1;
  }
}

/**
 * A filter must fit every backend in one query: PostgreSQL binds at most 65,535 parameters, OpenSearch allows 1024
 * clauses (indices.query.bool.max_clause_count) and 65,536 terms (index.max_terms_count). The schema and the token
 * limit do not bound a filter passed in variables, so its width is bounded here, the same on every backend.
 */
function checkWidth<N extends FilterNode<string, string>>(node: N, limits: FilterLimits): N {
  const conditions = countConditions(node);
  if (conditions > limits.maxConditions) {
    throw badUserInput(
      `filter has ${conditions} conditions; at most ${limits.maxConditions} are allowed (GRAPHQL_MAX_FILTER_CONDITIONS: each operator of a field, each JSON {key, value} pair and each not counts one): ` +
        'use in: [...] for many values of one field (at most ' +
        `${limits.maxInValues} values, GRAPHQL_MAX_FILTER_IN_VALUES), or split the query`,
    );
  }
  return node;
}

/** null when the filter places no condition. Explicit nulls inside a filter mean "no condition". */
export function translateInstanceFilter(arg: Maybe<InstanceFilterArg>, limits: FilterLimits = DEFAULT_FILTER_LIMITS): InstanceFilter | null {
  if (!isSet(arg)) return null;
  return orNull(checkWidth(instanceNode(arg, { path: 'filter.', depth: 0, limits }), limits));
}

export function translateTaskFilter(arg: Maybe<TaskFilterArg>, limits: FilterLimits = DEFAULT_FILTER_LIMITS): TaskFilter | null {
  if (!isSet(arg)) return null;
  return orNull(checkWidth(taskNode(arg, { path: 'filter.', depth: 0, limits }), limits));
}
