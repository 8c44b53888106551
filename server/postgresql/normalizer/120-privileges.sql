-- ------------------------------------------------------------------------------------------------
-- Function privileges, re-applied with every definition. Nothing in workflow_index is callable by PUBLIC. The
-- forwarder may call the raw array reader its INSERT statement uses and the parsing helpers it calls (they live
-- in workflow_raw, the forwarder's schema, run as the caller and only compute on their arguments).
-- ------------------------------------------------------------------------------------------------
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA workflow_index FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA workflow_raw FROM PUBLIC;

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA workflow_raw TO workflow_index_forwarder;
GRANT EXECUTE ON FUNCTION workflow_index.ingest_stats() TO workflow_index_reader;

-- The prune role runs retention (105-retention.sql, 104-raw-partitions.sql) and nothing else.
GRANT EXECUTE ON FUNCTION workflow_index.prune_raw_batch(TEXT, TIMESTAMPTZ, BIGINT, INTEGER),
  workflow_index.prune_instances_batch(TIMESTAMPTZ, INTEGER),
  workflow_index.prune_preview(TIMESTAMPTZ, TIMESTAMPTZ),
  workflow_index.create_raw_partitions(INTEGER), workflow_index.detach_raw_partitions(TEXT, TIMESTAMPTZ),
  workflow_index.drop_raw_partition(TEXT, TEXT) TO workflow_index_pruner;
