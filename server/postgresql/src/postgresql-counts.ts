// Counts that stay fast on any table size: exact while at most COUNT_EXACT_LIMIT rows match, counted
// with `LIMIT limit + 1` so no count reads more than that many rows; above it (or when the exact count does not
// finish within the count timeout) the planner's row estimate of the same statement, from EXPLAIN (FORMAT JSON):
// statistics-based (pg_class.reltuples and the column statistics, scaled by the filter's selectivity), so it is
// good for plain column filters and rough for payload and relation filters. Never reported below limit + 1 when that
// many rows were seen; when the exact count was cut short by the timeout, the estimate alone.
import type pg from 'pg';
import { BackendUnavailableError, INSTANCE_STATUSES } from '@workflow-index/core';
import type { Count, WorkflowInstanceStatus } from '@workflow-index/core';
import { classifyError, statementTimeoutOf } from './postgresql-errors.js';

/** GraphQL Int is 32-bit: an estimate beyond it is served as the largest Int. */
const MAX_INT = 2_147_483_647;
/** query_canceled: statement_timeout cut the exact count short. */
const QUERY_CANCELED = '57014';

export class CountStatements {
  constructor(
    private readonly pool: pg.Pool,
    private readonly timeoutMs: number,
  ) {}

  /** `from`: `FROM <table> <alias> WHERE <condition>` over the bind parameters `values`. */
  async count(from: string, values: readonly unknown[], exactLimit: number, what: string): Promise<Count> {
    const limit = `$${values.length + 1}`;
    const rows = await this.bounded<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 ${from} LIMIT ${limit}::int8) c`, [...values, exactLimit + 1], what);
    const counted = rows === null ? null : Number(rows[0]?.n ?? 0);
    if (counted !== null && counted <= exactLimit) return { value: counted, exact: true };
    // More than the limit were seen, or the exact count was cut short (then the estimate alone).
    const floor = counted === null ? 0 : exactLimit + 1;
    return { value: await this.estimate(`SELECT 1 ${from}`, values, floor, what), exact: false };
  }

  /**
   * `count` for rows served unless they are among a few excluded ones (the tasks of placeholder runs): one statement
   * counts the excluded matches (n, unbounded: they are few) and the matches with and without them, bounded by
   * LIMIT limit + 1 + n, and answers the difference. `estimateFrom` states the served rows directly, for the planner.
   */
  async countExcluding(parts: { from: string; excluded: string }, estimateFrom: string, values: readonly unknown[], exactLimit: number, what: string): Promise<Count> {
    const limit = `$${values.length + 1}`;
    const rows = await this.bounded<{ n: string }>(
      `SELECT c.n - x.n AS n FROM (SELECT count(*) AS n ${parts.excluded}) x,` +
        ` LATERAL (SELECT count(*) AS n FROM (SELECT 1 ${parts.from} LIMIT ${limit}::int8 + x.n) m) c`,
      [...values, exactLimit + 1],
      what,
    );
    const counted = rows === null ? null : Number(rows[0]?.n ?? 0);
    if (counted !== null && counted <= exactLimit) return { value: counted, exact: true };
    const floor = counted === null ? 0 : exactLimit + 1;
    return { value: await this.estimate(`SELECT 1 ${estimateFrom}`, values, floor, what), exact: false };
  }

  /**
   * One statement for the five statuses: a bounded count per status (each reads at most limit + 1 rows, from the
   * (status, …) indexes when the filter allows), then an estimate for each status above the limit.
   */
  async countByStatus(from: string, statusColumn: string, values: readonly unknown[], exactLimit: number): Promise<Record<WorkflowInstanceStatus, Count>> {
    const statuses = `$${values.length + 1}`;
    const limit = `$${values.length + 2}`;
    const rows = await this.bounded<{ status: WorkflowInstanceStatus; n: string }>(
      `SELECT s.status, (SELECT count(*) FROM (SELECT 1 ${from} AND ${statusColumn} = s.status LIMIT ${limit}::int8) c) AS n` +
        ` FROM unnest(${statuses}::text[]) AS s(status)`,
      [...values, [...INSTANCE_STATUSES], exactLimit + 1],
      'countInstancesByStatus',
    );
    const counted = new Map(rows?.map((row) => [row.status, Number(row.n)]) ?? []);
    const result = {} as Record<WorkflowInstanceStatus, Count>;
    for (const status of INSTANCE_STATUSES) {
      const n = counted.get(status);
      if (n !== undefined && n <= exactLimit) {
        result[status] = { value: n, exact: true };
      } else {
        const floor = n === undefined ? 0 : exactLimit + 1;
        const value = await this.estimate(`SELECT 1 ${from} AND ${statusColumn} = $${values.length + 1}`, [...values, status], floor, 'countInstancesByStatus');
        result[status] = { value, exact: false };
      }
    }
    return result;
  }

  /** The planner's row estimate of `select`, at least `floor`. */
  private async estimate(select: string, values: readonly unknown[], floor: number, what: string): Promise<number> {
    const rows = await this.run<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`EXPLAIN (FORMAT JSON) ${select}`, values, `${what} (estimate)`, null);
    const planned = rows?.[0]?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0;
    return Math.min(MAX_INT, Math.max(Math.round(planned), floor));
  }

  /** Rows of `text`, or null when it ran longer than the count timeout. */
  private bounded<R extends object>(text: string, values: readonly unknown[], what: string): Promise<R[] | null> {
    return this.run<R>(text, values, what, this.timeoutMs);
  }

  private async run<R extends object>(text: string, values: readonly unknown[], what: string, timeoutMs: number | null): Promise<R[] | null> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      const reason = error instanceof Error ? error.message || error.name : String(error);
      throw new BackendUnavailableError(`PostgreSQL unavailable (${what}): ${reason}`, { cause: error });
    }
    let inTransaction = false;
    try {
      if (timeoutMs !== null) {
        // SET LOCAL: the timeout ends with this transaction, the pooled session keeps its own settings.
        await client.query('BEGIN');
        inTransaction = true;
        await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
      }
      const result = await client.query<R>({ text, values: [...values] });
      if (inTransaction) await client.query('COMMIT');
      client.release();
      return result.rows;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const sqlError = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
      let rolledBack = !inTransaction;
      if (sqlError && inTransaction) {
        try {
          await client.query('ROLLBACK');
          rolledBack = true;
        } catch {
          // the session is discarded below
        }
      }
      const reusable = sqlError && rolledBack && (code === QUERY_CANCELED || !code.startsWith('57'));
      client.release(reusable ? undefined : (error as Error));
      if (code === QUERY_CANCELED && timeoutMs !== null) return null;
      throw classifyError(error, what, statementTimeoutOf(this.pool));
    }
  }
}
