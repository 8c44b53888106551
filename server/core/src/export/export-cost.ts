// What one page of an export costs in the query cost (docs/query-cost.md): its rows, the backend's statement and the
// filter's work, as a getWorkflowInstances field of that limit and filter is priced. An export holds the price of one
// page in GRAPHQL_MAX_COST_IN_FLIGHT for as long as it streams (it never holds more than one page), and a filter
// whose page is above GRAPHQL_MAX_COST is refused before anything runs, as the same list query would be.
import type { GraphQLInputObjectType } from 'graphql';
import { badUserInput } from '../errors.js';
import { filterWork } from '../filter-work.js';
import type { WorkPrices } from '../reader.js';

export interface PageCost {
  readonly total: number;
  /** The statement and filter part of `total`. */
  readonly work: number;
}

export function exportPageCost(pageSize: number, filterInput: unknown, type: GraphQLInputObjectType, prices: WorkPrices): PageCost {
  const work = Math.ceil(prices.statement + filterWork(type, filterInput, prices));
  return { total: pageSize + work, work };
}

/** BAD_USER_INPUT when one page is above the budget of one request. */
export function checkPageCost(cost: PageCost, pageSize: number, maxCost: number): void {
  if (cost.total <= maxCost) return;
  throw badUserInput(
    `Export cost ${cost.total} per page exceeds the budget of ${maxCost} rows (GRAPHQL_MAX_COST): each page reads ${pageSize} rows (EXPORT_PAGE_SIZE) ` +
      `and its statement and filter cost ${cost.work} (docs/query-cost.md). Use fewer and cheaper filter conditions (fewer in values, JSON tests, patterns, taskExecutions filters).`,
  );
}
