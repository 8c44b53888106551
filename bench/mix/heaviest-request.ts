// The heaviest request the server's limits accept, measured by bench:query apart from the mix for the memory a request
// at the budget costs at saturation. Its size is derived from the backend's prices (Reader.workPrices), not fixed: each
// alias reads a page of GRAPHQL_MAX_LIMIT runs with both payloads and costs that many rows plus its statement and its
// filter's work (the query cost, core query-cost.ts and filter-work.ts), so the request holds as many such aliases as
// GRAPHQL_MAX_COST allows and one smaller alias that spends what is left. A fixed 20 aliases × 1000 cost 20,520 once
// a statement had a price (25 on PostgreSQL), and the server refused the request the benchmark meant to measure.
import { createRequire } from 'node:module';
import type * as GraphQL from 'graphql';
import { filterWork, loadSchemaSdl, type WorkPrices } from '@workflow-index/core';
import { BASE_TIME, SPAN_SECONDS } from '@workflow-index/testkit';

// The CommonJS copy of graphql-js, the one core's filter walk uses (core graphql-runtime.ts): a schema built with
// another copy is refused as "from another module or realm".
const graphql = createRequire(import.meta.url)('graphql') as typeof GraphQL;

export const HEAVIEST_REQUEST_NAME = 'heaviest-legal-request';

/** The limits that bound the request: GRAPHQL_MAX_COST, GRAPHQL_MAX_LIMIT, GRAPHQL_MAX_ALIASES (CoreConfig['graphql']). */
export interface RequestLimits {
  readonly maxCost: number;
  readonly maxLimit: number;
  readonly maxAliases: number;
}

export interface HeavyAlias {
  readonly key: string;
  readonly limit: number;
  /** The alias reads the newest runs started before this time (ISO): each alias its own point of the dataset's span. */
  readonly before: string;
}

export interface HeaviestRequest {
  readonly name: typeof HEAVIEST_REQUEST_NAME;
  readonly query: string;
  readonly aliases: readonly HeavyAlias[];
  /** Its price under these prices and limits (at most maxCost): rows plus each alias's statement and filter. */
  readonly cost: number;
}

const FIELDS = 'id name namespace version status startDate endDate lastUpdate inputData outputData error { type title detail status instance }';

let instanceFilterType: GraphQL.GraphQLInputObjectType | undefined;
function instanceFilter(): GraphQL.GraphQLInputObjectType {
  if (instanceFilterType === undefined) {
    const type = graphql.buildSchema(loadSchemaSdl()).getType('WorkflowInstanceFilterInput');
    if (!graphql.isInputObjectType(type)) throw new Error('the schema has no WorkflowInstanceFilterInput');
    instanceFilterType = type;
  }
  return instanceFilterType;
}

/**
 * The heaviest legal request under `prices` and `limits`: aliases of getWorkflowInstances(limit: maxLimit,
 * filter: {startDate: {lt: …}}, orderBy: {startDate: DESC}) with every field and both payloads, as many as the budget
 * holds (and GRAPHQL_MAX_ALIASES allows), then one alias with the rows left after its own statement and filter.
 */
export function heaviestLegalRequest(prices: WorkPrices, limits: RequestLimits): HeaviestRequest {
  // Every alias has the same filter shape (one condition), so the same work; priced as the server prices it.
  const work = Math.ceil(prices.statement + filterWork(instanceFilter(), { startDate: { lt: new Date(BASE_TIME).toISOString() } }, prices));
  const full = Math.min(limits.maxAliases, Math.floor(limits.maxCost / (limits.maxLimit + work)));
  const left = limits.maxCost - full * (limits.maxLimit + work) - work;
  const pageLimits = [...Array.from({ length: full }, () => limits.maxLimit), ...(left > 0 && full < limits.maxAliases ? [left] : [])];
  if (pageLimits.length === 0) throw new Error(`no request fits GRAPHQL_MAX_COST ${limits.maxCost}: a page's statement and filter alone cost ${work}`);
  const n = pageLimits.length;
  const before = (k: number): string => new Date(BASE_TIME + Math.round(((n - k) * SPAN_SECONDS * 1000) / n)).toISOString();
  const aliases = pageLimits.map((limit, k) => ({ key: `p${k}`, limit, before: before(k) }));
  const fields = aliases.map((a) => `${a.key}: getWorkflowInstances(limit: ${a.limit}, filter: {startDate: {lt: "${a.before}"}}, orderBy: {startDate: DESC}) { ${FIELDS} }`);
  return {
    name: HEAVIEST_REQUEST_NAME,
    query: `query Heaviest { ${fields.join(' ')} }`,
    aliases,
    cost: pageLimits.reduce((sum, limit) => sum + limit + work, 0),
  };
}
