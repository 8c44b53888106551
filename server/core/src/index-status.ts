// indexStatus: how fresh the answers are, from the reader's ingestion statistics. lagSeconds is measured on the
// server's clock: now − newest indexed event time.
import { epochMicros } from './duration.js';
import { formatTimestampForOutput } from './date-time.js';
import type { IngestionStats } from './reader.js';

export interface IndexStatus {
  readonly backend: string;
  readonly newestEventTime: string | null;
  readonly lagSeconds: number | null;
  readonly rawEvents: number;
  readonly ingestErrors: number;
  readonly placeholders: number;
  readonly replicationLagSeconds: number | null;
}

/** GraphQL Int is 32-bit: a counter beyond it is served as the largest Int rather than failing the query. */
const MAX_INT = 2_147_483_647;
const asInt = (value: number): number => Math.min(Math.max(0, Math.trunc(value)), MAX_INT);

export function indexStatusOf(stats: IngestionStats, backend: string, nowMillis: number): IndexStatus {
  const newest = stats.newestEventTime;
  // Negative when the newest event is stamped ahead of this server's clock (clock skew): shown as is.
  const lagSeconds = newest === null ? null : Number(BigInt(Math.round(nowMillis)) * 1000n - epochMicros(newest)) / 1e6;
  return {
    backend,
    newestEventTime: newest === null ? null : formatTimestampForOutput(newest),
    lagSeconds,
    rawEvents: asInt(Object.values(stats.rawEvents).reduce((sum, n) => sum + n, 0)),
    ingestErrors: asInt(stats.ingestErrors),
    placeholders: asInt(stats.placeholderInstances),
    replicationLagSeconds: stats.replicationLagSeconds ?? null,
  };
}
