// The whole filter tree (reader.ts FilterNode) as one OpenSearch query over a normalized index. Field conditions are
// filter-dsl.ts's; the other kinds are translated here, some after a lookup (hence async):
//   duration  a range on `duration_us` (the millisecond bound as whole µs, durationBoundMicros), isNull: exists
//   jsonOp    json-operators.ts on documents the keyword fields decide, plus the ids of the others whose payload text
//             matches (read and checked here: capped payloads, documents normalized before the paths existed, and
//             operands the keywords cannot express, jsonOperatorPlan)
//   instance  (task filters) the run's name/namespace/version, denormalized into the task document: term queries
//   tasks     (instance filters) on status (and name) alone: the runs' task states (task-states-filter.ts), one
//             term query; any other: two steps: the distinct runs of the matching task executions (a composite
//             aggregation on instance_id, read in pages), then `id` in those runs. `not` is its exact complement
//             (runs with no matching task). The task filters of one filter resolve one after the other and together at
//             most MAX_TASK_FILTER_RUNS runs (a terms query holds at most 65,536 values); beyond, the filter is refused
//             with BAD_USER_INPUT asking for narrower ones. Resolved at once, 99 of them (the condition limit) over
//             5,200 runs each put their ids in one search and filled the node's heap.
import { badUserInput } from '@workflow-index/core';
import { durationBoundMicros } from '@workflow-index/core';
import type { DurationPredicate, FilterNode, SimpleFilterNode, InstanceStringField, JsonField, JsonPredicate } from '@workflow-index/core';
import type { NormalizedIndexNames } from '../../normalized-indices.js';
import { ambiguousKey, leafEntries, PATH_SEPARATOR, VALUE_SEPARATOR } from '../../json-leaves.js';
import { type FilterFields, IGNORE_ABOVE, INSTANCE_FIELDS, TASK_FIELDS } from '../fields.js';
import { escapeWildcard, filterDsl, NO_FALLBACK, WILDCARD_LIMIT } from '../filter-dsl.js';
import { resolveJsonFallback } from '../json-fallback.js';
import { resolveLongStrings } from '../long-detail-filter.js';
import { type Query, and, exists, MATCH_ALL, MATCH_NONE, MAX_TERMS_COUNT, not, or, range, terms } from '../query-dsl.js';
import type { Searcher } from '../search-requests.js';
import { checkedIds, idsQuery } from '../source-check.js';
import { DURATION_FIELD, JSON_OPERATOR_FIELDS, RUN_FIELDS } from './lookup-fields.js';
import { everyRunHasTaskStates, taskStatesQuery } from './task-states-filter.js';
import { decided, jsonOperatorDsl, type JsonOperatorFields, jsonPredicateMatches, undecided } from './json-operators.js';

/** The most runs the two steps resolve: the ids go into one terms query. */
export const MAX_TASK_FILTER_RUNS = MAX_TERMS_COUNT;
const PAGE = 10_000;

export type Target = 'instances' | 'tasks';

export interface FilterContext {
  readonly requests: Searcher;
  readonly names: NormalizedIndexNames;
  /** Served documents only (no placeholders): what every lookup is restricted to. */
  readonly served: Query;
  /** Bound of the `tasks` lookups of one filter together (tests lower it). */
  readonly maxTaskFilterRuns?: number;
  /** The runs the filter's `tasks` lookups may still resolve, and the lookup before this one: one filter's share. */
  readonly taskRuns?: TaskRunBudget;
}

/** What one filter's `tasks` lookups share: the runs they may still resolve, one lookup at a time. */
export interface TaskRunBudget {
  left: number;
  previous: Promise<unknown>;
}

/** A fresh share for the lookups of one filter. */
export function taskRunBudget(ctx: FilterContext): TaskRunBudget {
  return { left: ctx.maxTaskFilterRuns ?? MAX_TASK_FILTER_RUNS, previous: Promise.resolve() };
}

type AnyNode = FilterNode<string, string>;

const indexOf = (ctx: FilterContext, target: Target): string => (target === 'instances' ? ctx.names.workflowInstances : ctx.names.taskExecutions);
const fieldsOf = (target: Target): FilterFields<string, string> => (target === 'instances' ? INSTANCE_FIELDS : TASK_FIELDS) as FilterFields<string, string>;

/** The query of a filter tree (MATCH_ALL for none), without the served condition. */
export async function lookupFilterDsl(ctx: FilterContext, node: AnyNode | null, target: Target): Promise<Query> {
  if (node === null) return MATCH_ALL;
  switch (node.kind) {
    case 'and':
      return and(await Promise.all(node.nodes.map((n) => lookupFilterDsl(ctx, n, target))));
    case 'or':
      return or(await Promise.all(node.nodes.map((n) => lookupFilterDsl(ctx, n, target))));
    case 'not':
      return not(await lookupFilterDsl(ctx, node.node, target));
    case 'string': {
      const leaf = node as SimpleFilterNode<string, string>;
      const longStrings = await resolveLongStrings(ctx.requests, indexOf(ctx, target), leaf, fieldsOf(target), ctx.served);
      return filterDsl(leaf, fieldsOf(target), NO_FALLBACK, longStrings);
    }
    case 'time':
    case 'int':
      return filterDsl(node as SimpleFilterNode<string, string>, fieldsOf(target));
    case 'json': {
      const leaf = node as SimpleFilterNode<string, string>;
      const fallback = await resolveJsonFallback(ctx.requests, indexOf(ctx, target), leaf, fieldsOf(target), ctx.served);
      return filterDsl(leaf, fieldsOf(target), fallback);
    }
    case 'jsonOp':
      return jsonOperator(ctx, target, node.field, node.path, node.predicate);
    case 'duration':
      return durationDsl(node.predicate);
    case 'instance':
      if (target !== 'tasks') throw new Error('an instance condition is a task filter node');
      return runDsl(node.node);
    case 'tasks': {
      if (target !== 'instances') throw new Error('a taskExecutions condition is an instance filter node');
      const states = taskStatesQuery(node.node);
      if (states !== null && (await everyRunHasTaskStates(ctx.requests, ctx.names.workflowInstances))) return states;
      const taskQuery = await lookupFilterDsl(ctx, node.node, 'tasks');
      if (taskQuery === MATCH_NONE) return MATCH_NONE;
      return terms('id', await runsOfTasks(ctx, and([ctx.served, taskQuery])));
    }
  }
}

function durationDsl(p: DurationPredicate): Query {
  if (p.op === 'isNull') return p.value ? not(exists(DURATION_FIELD)) : exists(DURATION_FIELD);
  return range(DURATION_FIELD, { [p.op]: durationBoundMicros(p.op, p.value) });
}

/** An instance filter on the run's definition, over the task document's copies of it. */
function runDsl(node: FilterNode<InstanceStringField, string>): Query {
  switch (node.kind) {
    case 'and':
      return and(node.nodes.map(runDsl));
    case 'or':
      return or(node.nodes.map(runDsl));
    case 'not':
      return not(runDsl(node.node));
    case 'string': {
      const field = RUN_FIELDS[node.field];
      if (field === undefined) throw new Error(`task filters cannot test the run's ${node.field}`);
      return filterDsl({ kind: 'string', field: 'run', predicate: node.predicate }, { string: { run: field } } as unknown as FilterFields<'run', never>);
    }
    default:
      throw new Error(`task filters cannot test the run with a ${node.kind} condition`);
  }
}

async function jsonOperator(ctx: FilterContext, target: Target, field: JsonField, path: readonly string[], predicate: JsonPredicate): Promise<Query> {
  const fields = JSON_OPERATOR_FIELDS[field];
  const { onKeywords, checked } = jsonOperatorPlan(fields, path, predicate);
  // The documents the keyword fields cannot decide are checked on their payload text (source-check.ts).
  const ids = await checkedIds(ctx.requests, indexOf(ctx, target), and([ctx.served, checked]), fields.text, (text) => jsonPredicateMatches(text, path, predicate));
  return or([onKeywords, idsQuery(ids)]);
}

/**
 * Which documents the keyword query decides, and which are read and checked on their payload text: the undecided ones,
 * or more when the keywords cannot express the operand: an `ne`/`in` value longer than the keyword limit (no indexed
 * leaf holds it: every document is checked, as eq does), a `contains` text longer than WILDCARD_LIMIT (Lucene refuses
 * the automaton: a 64-character slice of it preselects the documents to check).
 */
function jsonOperatorPlan(fields: JsonOperatorFields, path: readonly string[], predicate: JsonPredicate): { onKeywords: Query; checked: Query } {
  const values = predicate.op === 'in' ? predicate.values : predicate.op === 'ne' ? [predicate.value] : [];
  // A path segment holding a separator: no keyword entry spells the path unambiguously (json-leaves.ts), so every
  // document is checked on its text.
  if (path.some(ambiguousKey) || values.some((v) => leafEntries(path, v).some((e) => e.length > IGNORE_ABOVE))) return { onKeywords: MATCH_NONE, checked: MATCH_ALL };
  if (predicate.op === 'contains' && [...predicate.value].length > WILDCARD_LIMIT) {
    const slice = [...predicate.value].slice(0, 64).join('');
    const strings = `${path.join(PATH_SEPARATOR)}${VALUE_SEPARATOR}s:`;
    const candidates = { wildcard: { [fields.leaves]: { value: `${escapeWildcard(strings)}*${escapeWildcard(slice)}*` } } };
    return { onKeywords: MATCH_NONE, checked: or([undecided(fields), candidates]) };
  }
  return { onKeywords: and([decided(fields), jsonOperatorDsl(fields, path, predicate)]), checked: undecided(fields) };
}

interface CompositeResponse {
  readonly runs: { readonly buckets: readonly { readonly key: { readonly id: string } }[]; readonly after_key?: { readonly id: string } };
}

/**
 * The distinct instance ids of the task executions `query` matches, within what is left of the filter's share
 * (`ctx.taskRuns`; a share of its own without one), after the filter's previous lookup has finished.
 */
export function runsOfTasks(ctx: FilterContext, query: Query): Promise<string[]> {
  const budget = ctx.taskRuns ?? taskRunBudget(ctx);
  const lookup = budget.previous.then(() => resolveRuns(ctx, query, budget));
  budget.previous = lookup.catch(() => undefined);
  return lookup;
}

async function resolveRuns(ctx: FilterContext, query: Query, budget: TaskRunBudget): Promise<string[]> {
  const bound = ctx.maxTaskFilterRuns ?? MAX_TASK_FILTER_RUNS;
  const ids: string[] = [];
  let after: { id: string } | undefined;
  for (;;) {
    const composite = { size: PAGE, sources: [{ id: { terms: { field: 'instance_id' } } }], ...(after === undefined ? {} : { after }) };
    const response = await ctx.requests.search(ctx.names.taskExecutions, { query, size: 0, aggs: { runs: { composite } } }, 'taskExecutions filter');
    const runs = (response.aggregations as unknown as CompositeResponse).runs;
    ids.push(...runs.buckets.map((b) => b.key.id));
    budget.left -= runs.buckets.length;
    if (budget.left < 0) {
      throw badUserInput(
        `filter.taskExecutions matches task executions of more than ${bound} workflow instances (its taskExecutions conditions together), more than the OpenSearch backend ` +
          'resolves in one query; narrow the task filters (e.g. taskName, status, startDate, workflowName), use fewer of them, or filter the instances first',
      );
    }
    if (runs.buckets.length < PAGE || runs.after_key === undefined) return ids;
    after = runs.after_key;
  }
}
