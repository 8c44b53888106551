-- Workflow Index, PostgreSQL schema v5: raw tables become an inbox with retention.
--
-- Until v4 the raw tables kept every event for ever, because rebuild_normalized() (run whenever the normalizer
-- definitions change) recomputed everything from them: deleting raw events would have changed served rows at the
-- next upgrade. From v5 the normalizer keeps every event it accepted in its own store, once per event identity
-- (docs/write-path.md "The event store"), and the rebuild replays that store (then the raw rows still there), so
-- `init-job prune` may delete raw events without changing a served row.
--
-- Backfill: this release also changes the normalizer definitions, so the migrator rebuilds in the same
-- transaction, right after this file; the rebuild replays every raw row through the new normalizer, which fills
-- the store. (A migration cannot call the new definitions itself: they are applied after the migrations.)

-- The event store: one row per event identity, permanent (only instance retention deletes from it).
CREATE TABLE workflow_index.events (
  instance_id   TEXT COLLATE "C" NOT NULL,
  -- 64-bit hash of the event's identity (workflow_index.stored_event_identity): for task events the contract's
  -- identity (position, timestamp, kind, content); for workflow events every field the instance merge reads.
  identity_hash BIGINT NOT NULL,
  kind          TEXT COLLATE "C" NOT NULL,  -- workflow | task
  raw_table     TEXT COLLATE "C" NOT NULL,  -- the raw table of the first delivery, which the replay keeps
  raw_id        BIGINT NOT NULL,            -- the first raw row that carried the event
  -- The producer's event: the raw record without what a forwarder adds (stored_event_document).
  document      JSONB NOT NULL,
  stored_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (instance_id, identity_hash)
);
-- The rebuild replays the store in first-delivery order.
CREATE INDEX events_first_delivery_idx ON workflow_index.events (raw_table, raw_id);

-- Runs deleted by instance retention. A late event for one of them (a Fluent Bit re-read, a backfill) is ignored
-- instead of bringing back part of the run. One small row per pruned run.
CREATE TABLE workflow_index.pruned_instances (
  id         TEXT COLLATE "C" PRIMARY KEY,
  end_time   TIMESTAMPTZ,
  pruned_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The prune role: may run the retention functions (normalizer/105-retention.sql) and nothing else. A login that is
-- a member can delete what retention deletes, in the batches those functions take, and cannot read or change
-- anything else.
DO $$
BEGIN
  CREATE ROLE workflow_index_pruner NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;
GRANT USAGE ON SCHEMA workflow_index TO workflow_index_pruner;

-- What prune looks up: finished runs by their end (the end index of 0003 holds served rows only, and retention
-- deletes finished placeholders too), and the ingest errors of the raw rows it deletes.
CREATE INDEX workflow_instances_finished_end_idx ON workflow_index.workflow_instances (end_time, id) WHERE status_terminal;
CREATE INDEX ingest_errors_raw_idx ON workflow_index.ingest_errors (raw_table, raw_id);
