// What a request's work costs this backend, in served rows: measured by `npm run bench:filter-cost -- --backend
// opensearch` at 100,000 runs with 10 task executions each on one node (docs/query-cost.md has the table and how to
// measure it again). A served row costs this backend more than PostgreSQL's, so the same work is fewer rows here. A
// taskExecutions filter is priced at its worst: resolving up to 65,536 runs (lookups/lookup-filter.ts), about 60 ms at
// 100,000 runs, where one matching a few runs costs 17 rows.
import type { WorkPrices } from '@workflow-index/core';

export const OPENSEARCH_WORK_PRICES: WorkPrices = Object.freeze({
  statement: 60,
  condition: 1,
  inValue: 0.1,
  pattern: 16,
  jsonLookup: 25,
  jsonTest: 17,
  jsonInValue: 0.1,
  relation: 2200,
});
