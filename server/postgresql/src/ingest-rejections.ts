// Which written events the normalizer rejected. Rejections are attributed through the raw tables' identity
// sequences: the ids a batch received lie between the sequence values read before and after it, and when exactly
// as many ids were taken as rows were written, no other writer interleaved and id order is the batch's row order.
import { TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from './fluent-bit-statement.js';
import { RAW_SCHEMA, type RawTable, type SqlExecutor } from './ingest-raw-tables.js';

export interface BatchRejections {
  readonly count: number;
  /** The table's sequence value before the batch: its rows have the ids after it. */
  readonly lo: number;
  /** The batch's rows have exactly the ids lo + 1 … lo + batch length, in order. */
  readonly exact: boolean;
  readonly samples: ReadonlyArray<{ readonly rawId: number; readonly eventType: string | null; readonly reason: string }>;
}

export interface RejectionTracker {
  afterBatch(table: RawTable, batchLength: number, sampleLimit: number): Promise<BatchRejections>;
}

// No right to read ingest_errors or the sequences: the run goes on without counting rejections.
const PERMISSION_SQLSTATES = new Set(['42501', '42P01', '3F000', '42883']);

/** Reads the baseline; null when this login cannot see what the normalizer rejected. */
export async function startRejectionTracking(db: SqlExecutor): Promise<RejectionTracker | null> {
  try {
    const res = await db.query(
      `SELECT coalesce((SELECT max(id) FROM workflow_index.ingest_errors), 0)::text AS baseline,
              pg_get_serial_sequence($1, 'id') AS wseq, pg_get_serial_sequence($2, 'id') AS tseq`,
      [`${RAW_SCHEMA}.${WORKFLOW_EVENTS_TABLE}`, `${RAW_SCHEMA}.${TASK_EVENTS_TABLE}`],
    );
    const row = res.rows[0] as { baseline: string; wseq: string | null; tseq: string | null } | undefined;
    if (!row?.wseq || !row.tseq) return null;
    const sequences = { [WORKFLOW_EVENTS_TABLE]: row.wseq, [TASK_EVENTS_TABLE]: row.tseq };
    return rejectionTracker(db, Number(row.baseline), sequences, await sequenceValues(db, sequences));
  } catch (error) {
    if (error instanceof Error && PERMISSION_SQLSTATES.has(String((error as { code?: unknown }).code))) return null;
    throw error;
  }
}

function rejectionTracker(db: SqlExecutor, baseline: number, sequences: Record<RawTable, string>, start: Record<RawTable, number>): RejectionTracker {
  let last = start;
  return {
    async afterBatch(table, batchLength, sampleLimit) {
      const before = last;
      const res = await db.query(
        `WITH s AS (SELECT coalesce(pg_sequence_last_value($1::regclass), 0) AS w, coalesce(pg_sequence_last_value($2::regclass), 0) AS t),
              e AS (SELECT e.id, e.raw_id, e.event_type, e.reason FROM workflow_index.ingest_errors e, s
                    WHERE e.id > $3 AND e.raw_table = $4 AND e.raw_id > $5
                      AND e.raw_id <= CASE WHEN $4 = '${WORKFLOW_EVENTS_TABLE}' THEN s.w ELSE s.t END)
         SELECT s.w::text AS w, s.t::text AS t, (SELECT count(*) FROM e)::int AS n,
                (SELECT coalesce(json_agg(x ORDER BY x.id), '[]') FROM (SELECT * FROM e ORDER BY id LIMIT $6) x) AS samples
         FROM s`,
        [sequences[WORKFLOW_EVENTS_TABLE], sequences[TASK_EVENTS_TABLE], baseline, table, before[table], Math.max(0, sampleLimit)],
      );
      const row = res.rows[0] as { w: string; t: string; n: number; samples: Array<{ raw_id: number; event_type: string | null; reason: string }> };
      last = { [WORKFLOW_EVENTS_TABLE]: Number(row.w), [TASK_EVENTS_TABLE]: Number(row.t) };
      return {
        count: row.n,
        lo: before[table],
        exact: last[table] - before[table] === batchLength,
        samples: row.samples.map((s) => ({ rawId: Number(s.raw_id), eventType: s.event_type, reason: s.reason })),
      };
    },
  };
}

async function sequenceValues(db: SqlExecutor, sequences: Record<RawTable, string>): Promise<Record<RawTable, number>> {
  const res = await db.query(
    `SELECT coalesce(pg_sequence_last_value($1::regclass), 0)::text AS w, coalesce(pg_sequence_last_value($2::regclass), 0)::text AS t`,
    [sequences[WORKFLOW_EVENTS_TABLE], sequences[TASK_EVENTS_TABLE]],
  );
  const row = res.rows[0] as { w: string; t: string };
  return { [WORKFLOW_EVENTS_TABLE]: Number(row.w), [TASK_EVENTS_TABLE]: Number(row.t) };
}
