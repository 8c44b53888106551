-- ------------------------------------------------------------------------------------------------
-- Function privileges, re-applied with every definition. Nothing in workflow_index is callable by PUBLIC. The
-- forwarder may call the raw array reader its INSERT statement uses and the parsing helpers it calls (they live
-- in workflow_raw, the forwarder's schema, run as the caller and only compute on their arguments).
-- ------------------------------------------------------------------------------------------------
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA workflow_index FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA workflow_raw FROM PUBLIC;

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA workflow_raw TO workflow_index_forwarder;
GRANT EXECUTE ON FUNCTION workflow_index.ingest_stats() TO workflow_index_reader;
