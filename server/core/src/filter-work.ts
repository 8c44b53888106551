// What a filter makes the database do, priced in rows (the query cost's currency: one served row) before anything
// runs. Rows alone priced `input: {in: [{key, values: [10,000 strings]}]}` with limit 5 at 5 rows while it held a
// PostgreSQL backend for seconds; each unit below is what the backend's calibration measured per unit
// (npm run bench:filter-cost, docs/query-cost.md). The walk follows the schema's filter input types, so a field added
// to a filter type is priced by its type without a change here.
import type { GraphQLInputObjectType, GraphQLInputType } from 'graphql';
import { graphql } from './graphql-runtime.js';
import { isTextOperator, TEXT_OPERATORS } from './text-operators.js';

const { getNamedType, isInputObjectType } = graphql;

/** What one unit of a request's work costs, in served rows. Each backend measures its own (Reader.workPrices). */
export interface WorkPrices {
  /** Each root field that reads (a statement or search of its own; every alias is one). */
  readonly statement: number;
  /** Each condition on a field (an operator such as eq, gt, isNull, between), and each `not`. */
  readonly condition: number;
  /** Each value of an `in` list of a string, status or int field. */
  readonly inValue: number;
  /** Each like, contains, startsWith or endsWith pattern (checked on rows an index does not rule out). */
  readonly pattern: number;
  /** Each JSON {key, value} pair of `eq`, and each {key, values} pair of `in` (an index lookup where the backend has one). */
  readonly jsonLookup: number;
  /** Each other JSON pair (ne, gt, gte, lt, lte, contains, exists): a test on every candidate row. */
  readonly jsonTest: number;
  /** Each value of a JSON `in` pair. */
  readonly jsonInValue: number;
  /** Each filter on the other table (a run filter's taskExecutions): a lookup per candidate row. */
  readonly relation: number;
}

const JSON_FILTER = 'JsonFilterInput';
const LOGIC = new Set(['and', 'or', 'not']);

/**
 * The work of `value` as a filter of `type` (WorkflowInstanceFilterInput or TaskExecutionFilterInput). `value` is what
 * the client sent (a variable's JSON, or a literal's value), not yet validated: anything of the wrong shape prices 0,
 * validation refuses it later.
 */
export function filterWork(type: GraphQLInputObjectType, value: unknown, prices: WorkPrices): number {
  if (!isRecord(value)) return 0;
  const fields = type.getFields();
  let work = 0;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'and' || key === 'or') {
      if (Array.isArray(inner)) for (const operand of inner) work += filterWork(type, operand, prices);
    } else if (key === 'not') {
      work += prices.condition + filterWork(type, inner, prices);
    } else {
      const field = fields[key];
      if (field !== undefined) work += fieldWork(type, field.type, inner, prices);
    }
  }
  return work;
}

function fieldWork(owner: GraphQLInputObjectType, type: GraphQLInputType, value: unknown, prices: WorkPrices): number {
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return 0;
  if (named.name === JSON_FILTER) return jsonWork(value, prices);
  if (isFilterType(named) && named !== owner) return prices.relation + filterWork(named, value, prices);
  if (!isRecord(value)) return value === undefined || value === null ? 0 : prices.condition; // shorthand: {eq: value}
  const nestedFields = named.getFields();
  let work = 0;
  for (const [operator, operand] of Object.entries(value)) {
    const nested = nestedFields[operator];
    if (nested === undefined) continue;
    if (isInputObjectType(getNamedType(nested.type)) && operator !== 'between') work += fieldWork(owner, nested.type, operand, prices); // error { type: {…} }
    else work += operatorWork(operator, operand, prices);
  }
  return work;
}

function operatorWork(operator: string, operand: unknown, prices: WorkPrices): number {
  if (operand === undefined || operand === null) return 0;
  if (operator === 'in') return prices.condition + (Array.isArray(operand) ? operand.filter((v) => v !== null).length * prices.inValue : 0);
  return operator === 'like' || (isTextOperator(operator) && TEXT_OPERATORS[operator].pattern) ? prices.pattern : prices.condition;
}

function jsonWork(value: unknown, prices: WorkPrices): number {
  if (!isRecord(value)) return 0;
  let work = 0;
  for (const [operator, pairs] of Object.entries(value)) {
    if (!Array.isArray(pairs)) continue;
    for (const pair of pairs) {
      if (pair === null) continue; // skipped by the translation: no condition
      if (operator === 'eq') work += prices.jsonLookup;
      else if (operator === 'in') work += prices.jsonLookup + jsonInValues(pair) * prices.jsonInValue;
      else work += prices.jsonTest;
    }
  }
  return work;
}

function jsonInValues(pair: unknown): number {
  if (!isRecord(pair)) return 0;
  const values = pair['values'];
  return Array.isArray(values) ? values.filter((v) => v !== null).length : 0;
}

/** A filter input of its own table: it combines with and/or/not. */
function isFilterType(type: GraphQLInputObjectType): boolean {
  const fields = type.getFields();
  return [...LOGIC].every((name) => fields[name] !== undefined);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
