// The `filter` query parameter of an export: the JSON of a WorkflowInstanceFilterInput, taken exactly as the GraphQL
// `filter` argument takes it in variables: bounded nesting, shorthand expanded, coerced against the schema's input
// type (the DateTime scalar included), then the same translation with the same limits. So a filter either means the
// same thing in both places or is refused here with the message GraphQL would give, before any row is read.
import type { GraphQLInputObjectType, GraphQLSchema } from 'graphql';
import type { CoreConfig } from '../config.js';
import { badUserInput } from '../errors.js';
import { translateInstanceFilter } from '../filter-translation.js';
import type { InstanceFilterArg } from '../filter-translation.js';
import { graphql } from '../graphql-runtime.js';
import { variablesJsonDepth } from '../graphql-plugins.js';
import { jsonDepthExceeds } from '../json-depth.js';
import type { InstanceFilter } from '../reader.js';
import { expandShorthandValue } from '../shorthand.js';

export const INSTANCE_FILTER_TYPE = 'WorkflowInstanceFilterInput';

export interface ParsedFilter {
  /** The filter as the client wrote it, shorthand expanded (what the query cost prices). */
  readonly input: unknown;
  /** The translated tree the Reader receives; null: every run. */
  readonly filter: InstanceFilter | null;
}

export function instanceFilterType(schema: GraphQLSchema): GraphQLInputObjectType {
  const type = schema.getType(INSTANCE_FILTER_TYPE);
  if (type === undefined || !graphql.isInputObjectType(type)) throw new Error(`the schema has no input type ${INSTANCE_FILTER_TYPE}`);
  return type;
}

/** Absent or empty: every run. Throws BAD_USER_INPUT with what is wrong. */
export function parseExportFilter(text: string | null, type: GraphQLInputObjectType, limits: CoreConfig['graphql']): ParsedFilter {
  if (text === null || text.trim() === '') return { input: null, filter: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw badUserInput(`filter must be the JSON of a ${INSTANCE_FILTER_TYPE}, e.g. {"status":"FAULTED"}; it is not JSON (${(error as Error).message})`);
  }
  if (json === null) return { input: null, filter: null };
  if (typeof json !== 'object' || Array.isArray(json)) throw badUserInput(`filter must be a JSON object (a ${INSTANCE_FILTER_TYPE}), e.g. {"status":"FAULTED"}`);
  const maxJsonDepth = variablesJsonDepth(limits.maxFilterDepth);
  if (jsonDepthExceeds(json, maxJsonDepth)) {
    throw badUserInput(`filter nests more than ${maxJsonDepth} levels deep; filters may nest and/or/not at most ${limits.maxFilterDepth} levels (GRAPHQL_MAX_FILTER_DEPTH)`);
  }
  const input = expandShorthandValue(type, json);
  const coerced = coerce(input, type);
  const filter = translateInstanceFilter(coerced, { maxDepth: limits.maxFilterDepth, maxConditions: limits.maxFilterConditions, maxInValues: limits.maxFilterInValues });
  return { input, filter };
}

/** graphql-js's own coercion of a variable value; every problem it finds, in one message. */
function coerce(value: unknown, type: GraphQLInputObjectType): InstanceFilterArg {
  const problems: string[] = [];
  const coerced = graphql.coerceInputValue(value, type, (path, _invalid, error) => {
    const at = path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('');
    problems.push(`filter${at}: ${error.message}`);
  });
  if (problems.length > 0) throw badUserInput(`filter is not a valid ${INSTANCE_FILTER_TYPE}: ${problems.slice(0, 5).join('; ')}`);
  return coerced as InstanceFilterArg;
}
