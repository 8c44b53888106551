// What a request's work costs this backend, in served rows: measured by `npm run bench:filter-cost -- --backend
// postgresql` at 100,000 runs with 10 task executions each (docs/query-cost.md has the table and how to measure it
// again). Units that check every candidate row (JSON tests, like patterns, task filters of runs) grow with the
// tables; the statement_timeout bounds them on larger ones.
import type { WorkPrices } from '@workflow-index/core';

export const POSTGRESQL_WORK_PRICES: WorkPrices = Object.freeze({
  statement: 25,
  condition: 1,
  inValue: 0.3,
  pattern: 140,
  jsonLookup: 27,
  jsonTest: 3800,
  jsonInValue: 1.1,
  relation: 140,
});
