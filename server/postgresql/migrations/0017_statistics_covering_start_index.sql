-- Workflow Index, PostgreSQL schema: workflowStats read from the start-time index alone.
--
-- workflowStats reads each interval of its range from the start-time index (0003) and aggregates status, duration
-- and the grouped fields of every run in it. With the index holding only (start_time, id), each of those runs is a
-- heap fetch of its whole row (payloads included): a day of 33,333 runs read 1,834 heap pages, and a name filter was
-- planned on the (namespace, name, start_time) index, reading 6,000 pages of it (bench:stats at 1,000,000 runs over
-- 30 days: 45 ms and 177 ms per statement warm). Carrying the columns a bucket needs in the same index makes every
-- statistics statement without a payload filter an index-only scan (1 ms per 1,000 runs), filters on status, name,
-- namespace, version and endDate included.
--
-- The same index, wider, rather than a second one: an instance row's insert and each of its updates (every update
-- changes last_update, an indexed column, so none is HOT) already write an entry here; a second index would be one
-- more entry per row version. The entries grow from about 40 to about 105 bytes (the index from 39 MB to 105 MB at
-- 1,000,000 runs); the list pages ordered by start time read the same number of entries from it as before.
-- bench:ingest measured the cost (docs/benchmarks.md#statistics).
DROP INDEX workflow_index.workflow_instances_start_idx;
CREATE INDEX workflow_instances_start_idx ON workflow_index.workflow_instances (start_time DESC NULLS LAST, id)
  INCLUDE (status, end_time, duration_us, name, namespace, version)
  WHERE started_event_time IS NOT NULL;
