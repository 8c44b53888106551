// Live updates on a streaming replica (docs/live-updates.md): NOTIFY is not replicated and a standby refuses LISTEN,
// so there the change feed polls instead. Each poll first reads the replayed WAL position; only when it advanced does
// it read the runs whose row (workflow_instances.updated_at) or a task execution (task_executions.updated_at) changed
// since the newest stamp seen, less OVERLAP_MS: updated_at is the writing transaction's start on the primary, so a
// transaction that commits up to OVERLAP_MS after it started is still seen. The (id, stamp) pairs inside the overlap
// are remembered, so a change is delivered once. More than MAX_IDS changes at once deliver `resync`.
import type pg from 'pg';
import type { ChangeBatch } from '@workflow-index/core';

export const STANDBY_POLL_MS = 1000;
const OVERLAP_MICROS = 5_000_000n;
const MAX_IDS = 1000;

const STAMP = (column: string): string => `(extract(epoch FROM ${column}) * 1000000)::int8`;
const FROM_STAMP = `'epoch'::timestamptz + $1::int8 * interval '1 microsecond'`;
/** The runs written since a stamp (µs since the epoch, $1), at most $2: range scans of the updated_at indexes (0018). */
export const CHANGED_SINCE = `
  SELECT id, at::text AS at FROM (
    SELECT id, ${STAMP('updated_at')} AS at FROM workflow_index.workflow_instances WHERE updated_at > ${FROM_STAMP}
    UNION ALL
    SELECT instance_id, ${STAMP('updated_at')} FROM workflow_index.task_executions WHERE updated_at > ${FROM_STAMP}
  ) c ORDER BY at LIMIT $2`;
/** The newest write stamp: the max of each table's updated_at first (the end of its index), then converted. */
export const NEWEST = `SELECT greatest((SELECT ${STAMP('max(updated_at)')} FROM workflow_index.workflow_instances),
                                (SELECT ${STAMP('max(updated_at)')} FROM workflow_index.task_executions))::text AS at`;
const POSITION = 'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn';

/** What one poll found: a batch to deliver (or null), or that the server is no longer a standby (promoted). */
export type PollResult = { readonly promoted: true } | { readonly promoted: false; readonly batch: ChangeBatch | null };

export class StandbyChangePoll {
  private lsn: string | null = null;
  private newest = 0n;
  /** `id@stamp` of the changes delivered whose stamp is still inside the overlap. */
  private readonly seen = new Map<string, bigint>();

  constructor(private readonly client: pg.ClientBase) {}

  /** Takes what the standby holds now as seen (it is what subscribers read on subscribe). */
  async start(): Promise<void> {
    this.lsn = (await this.position()).lsn;
    this.newest = await this.newestStamp();
    this.remember(await this.changedSince(this.newest - OVERLAP_MICROS));
  }

  async poll(): Promise<PollResult> {
    const { standby, lsn } = await this.position();
    if (!standby) return { promoted: true };
    if (lsn === this.lsn) return { promoted: false, batch: null };
    this.lsn = lsn;
    const rows = await this.changedSince(this.newest - OVERLAP_MICROS);
    if (rows.length > MAX_IDS) {
      this.seen.clear();
      this.newest = await this.newestStamp();
      this.remember(await this.changedSince(this.newest - OVERLAP_MICROS));
      return { promoted: false, batch: { kind: 'resync' } };
    }
    const ids = this.remember(rows);
    return { promoted: false, batch: ids.length === 0 ? null : { kind: 'changed', ids } };
  }

  /** Records the changes as seen; returns the ids of those not seen before. */
  private remember(rows: ReadonlyArray<{ id: string; at: string }>): string[] {
    const ids = new Set<string>();
    for (const row of rows) {
      const at = BigInt(row.at);
      const key = `${row.id}@${row.at}`;
      if (at > this.newest) this.newest = at;
      if (this.seen.has(key)) continue;
      this.seen.set(key, at);
      ids.add(row.id);
    }
    for (const [key, at] of this.seen) if (at <= this.newest - OVERLAP_MICROS) this.seen.delete(key);
    return [...ids];
  }

  private async changedSince(since: bigint): Promise<Array<{ id: string; at: string }>> {
    return (await this.client.query<{ id: string; at: string }>(CHANGED_SINCE, [since.toString(), MAX_IDS + 1])).rows;
  }

  private async newestStamp(): Promise<bigint> {
    const at = (await this.client.query<{ at: string | null }>(NEWEST)).rows[0]?.at ?? null;
    return at === null ? 0n : BigInt(at);
  }

  private async position(): Promise<{ standby: boolean; lsn: string | null }> {
    const row = (await this.client.query<{ standby: boolean; lsn: string | null }>(POSITION)).rows[0];
    return { standby: row?.standby === true, lsn: row?.lsn ?? null };
  }
}
