-- Workflow Index, PostgreSQL schema: finer statistics for the run payloads the JSON filters read (issue 9).
--
-- A JSON filter on a page (`input: {eq/in: ...}` with the default order) is answered either from the GIN index
-- (bitmap, then a top-N sort of the matches) or by walking the start-time index and checking each run. The planner
-- picks by its estimate of the containment `input @> {...}`, which for jsonb it takes from the column's histogram:
-- with the default statistics target (100) a value that happens to appear in one of the 100 histogram entries is
-- estimated at 1 % of the runs. At 1,000,000 runs that made the planner walk the start-time index for such values
-- (it expected a match every 100 runs) and read ~130,000 runs to find 20 of the 200-600 that match: 50-200 ms per
-- page instead of 4-8 ms (bench:query instances-json-in at 1M: p99 at 100 req/s 126 ms; with this setting 16 ms).
-- With 1,000 entries (ANALYZE samples 300,000 rows) such a value is estimated at 0.1 %, and most at the floor of the
-- estimate. Cost: ANALYZE of the runs table took 7 s at 1,000,000 runs (autovacuum runs it in the background), and
-- planning a JSON filter evaluates the containment on up to 1,000 histogram entries.
ALTER TABLE workflow_index.workflow_instances ALTER COLUMN input SET STATISTICS 1000;
ALTER TABLE workflow_index.workflow_instances ALTER COLUMN output SET STATISTICS 1000;
