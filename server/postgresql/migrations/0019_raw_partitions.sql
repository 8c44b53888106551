-- Workflow Index, PostgreSQL schema: raw tables partitioned by UTC day of their record time (CONTRACT §10), so that
-- retention drops whole days instead of deleting rows (normalizer/104-raw-partitions.sql).
--
-- Each raw table becomes a table partitioned by range of `time` with the same columns (tag, time, data, id), the
-- same identity sequence position (ingest_stats() counts received events from it), a btree index on id (what
-- ingest_errors and the rebuild look raw rows up by) and the BRIN index on time, and one DEFAULT partition, which
-- takes every row no day partition covers: no record time, a day whose partition does not exist (yet, or any more),
-- a clock far in the past or future. The day partitions themselves are created by
-- workflow_index.create_raw_partitions(), which `init-job migrate` runs right after this and `init-job prune` runs
-- daily. The triggers and grants follow the tables (090-triggers.sql, applied after every migration, creates the
-- triggers on the partitioned tables; the forwarder gets INSERT on (tag, time, data) of the partitioned table only,
-- none on any partition, so it cannot insert past the normalizer).
--
-- An existing install keeps its rows where they are, in one transaction that Fluent Bit's flushes wait for: the old
-- table becomes the partition `<table>_unpartitioned` for every record time before the next UTC midnight, after its
-- rows without a record time or recorded from that midnight on (a producer's clock ahead) moved to the DEFAULT
-- partition. Attaching it reads it once (PostgreSQL checks every row against the range) and builds its id index
-- (its primary key index cannot serve as a partition of a non-unique index; it is dropped afterwards); retention
-- deletes its rows row by row until the whole of it is older than the horizon, then drops it like a day.
-- A fresh install's tables are empty: the old table is simply dropped.
DO $$
DECLARE
  t TEXT;
  legacy TEXT;
  last_id BIGINT;
  cutover TIMESTAMPTZ := (date_trunc('day', now() AT TIME ZONE 'UTC') + INTERVAL '1 day') AT TIME ZONE 'UTC';
  empty BOOLEAN;
BEGIN
  FOREACH t IN ARRAY ARRAY['workflow_events_raw', 'task_events_raw'] LOOP
    legacy := t || '_unpartitioned';
    EXECUTE format('LOCK TABLE workflow_raw.%I IN ACCESS EXCLUSIVE MODE', t);
    last_id := pg_sequence_last_value(pg_get_serial_sequence(format('workflow_raw.%I', t), 'id')::REGCLASS);
    EXECUTE format('ALTER TABLE workflow_raw.%I RENAME TO %I', t, legacy);
    EXECUTE format('ALTER INDEX workflow_raw.%I RENAME TO %I', t || '_time_brin', legacy || '_time_brin');
    EXECUTE format('DROP TRIGGER IF EXISTS normalize_workflow_events ON workflow_raw.%I', legacy);
    EXECUTE format('DROP TRIGGER IF EXISTS normalize_task_events ON workflow_raw.%I', legacy);
    EXECUTE format('ALTER TABLE workflow_raw.%I ALTER COLUMN id DROP IDENTITY', legacy);
    EXECUTE format('REVOKE ALL ON workflow_raw.%I FROM PUBLIC, workflow_index_forwarder', legacy);

    EXECUTE format('CREATE TABLE workflow_raw.%I (tag TEXT, time TIMESTAMPTZ, data JSON, id BIGINT GENERATED ALWAYS AS IDENTITY) PARTITION BY RANGE (time)', t);
    IF last_id IS NOT NULL THEN
      EXECUTE format('ALTER TABLE workflow_raw.%I ALTER COLUMN id RESTART WITH %s', t, last_id + 1);
    END IF;
    EXECUTE format('CREATE INDEX %I ON workflow_raw.%I (id)', t || '_id_idx', t);
    EXECUTE format('CREATE INDEX %I ON workflow_raw.%I USING brin (time)', t || '_time_brin', t);
    EXECUTE format('CREATE TABLE workflow_raw.%I PARTITION OF workflow_raw.%I DEFAULT', t || '_default', t);
    EXECUTE format('GRANT INSERT (tag, time, data) ON workflow_raw.%I TO workflow_index_forwarder', t);

    EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM workflow_raw.%I)', legacy) INTO empty;
    IF empty THEN
      EXECUTE format('DROP TABLE workflow_raw.%I', legacy);
    ELSE
      EXECUTE format(
        'WITH moved AS (DELETE FROM workflow_raw.%1$I r WHERE r.time IS NULL OR r.time >= $1 RETURNING r.tag, r.time, r.data, r.id)
         INSERT INTO workflow_raw.%2$I (tag, time, data, id) SELECT * FROM moved', legacy, t || '_default') USING cutover;
      EXECUTE format('ALTER TABLE workflow_raw.%I ATTACH PARTITION workflow_raw.%I FOR VALUES FROM (MINVALUE) TO (%L)', t, legacy, cutover);
      EXECUTE format('ALTER TABLE workflow_raw.%I DROP CONSTRAINT %I', legacy, t || '_pkey');
    END IF;
  END LOOP;
END
$$;
