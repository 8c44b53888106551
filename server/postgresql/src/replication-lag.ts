// The replay lag of a streaming replica (docs/operations.md, "Reading from a replica"), in seconds, from the
// session's own server: null on a primary; 0 when the standby has replayed all the WAL it received; else the time
// since the last transaction it replayed committed on the primary. The plain `now() − pg_last_xact_replay_timestamp()`
// grows while the primary is idle (nothing new to replay) and would report a caught-up standby as lagging; comparing
// the received and replayed WAL positions first does not. A standby cut off from its primary shows the lag of what it
// received (the primary's own monitoring, pg_stat_replication, sees the rest).
import { BackendUnavailableError } from '@workflow-index/core';

/** A SELECT-list expression (float8 seconds or NULL), usable beside other columns. */
export const REPLICATION_LAG_SECONDS_SQL = `CASE
    WHEN NOT pg_is_in_recovery() THEN NULL
    WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0::float8
    ELSE greatest(0, extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()))::float8
  END`;

export const REPLICATION_LAG_QUERY = `SELECT ${REPLICATION_LAG_SECONDS_SQL} AS replication_lag_seconds`;

/** What the readiness probe holds against the lag: DOWN past maxSeconds (0: no check). */
export interface ReplicationLagLimit {
  readonly maxSeconds: number;
  /** Reads the lag (REPLICATION_LAG_QUERY) over the readers' pool; null on a primary. */
  readonly read: () => Promise<number | null>;
}

/** Throws BackendUnavailableError with the reason when the replica is further behind than allowed. */
export async function assertReplicationLag(limit: ReplicationLagLimit): Promise<void> {
  if (limit.maxSeconds === 0) return;
  const lag = await limit.read();
  if (lag !== null && lag > limit.maxSeconds) {
    throw new BackendUnavailableError(`the PostgreSQL replica is ${lag.toFixed(1)} s behind its primary (DATABASE_MAX_REPLICATION_LAG_SECONDS=${limit.maxSeconds})`);
  }
}

/** pg returns float8 as a number; NULL as null. */
export function lagOf(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
