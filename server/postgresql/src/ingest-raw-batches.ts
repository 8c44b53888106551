// Events wait per raw table until a batch is full and are then written in one statement, the one Fluent Bit's
// pgsql output sends for a flush, so input order is kept within a table.
import type { LineRepair } from '@workflow-index/events';
import { fluentBitInsertStatementForTexts, TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from './fluent-bit-statement.js';
import { RAW_SCHEMA, RAW_TABLE_TAGS, type RawTable, type SqlExecutor } from './ingest-raw-tables.js';
import type { RejectionTracker } from './ingest-rejections.js';
import type { IngestRetry } from './ingest-retry.js';
import type { IngestTally } from './ingest-summary.js';

export interface PendingEvent {
  /** The record as the statement holds it: the record time key first, then the (repaired) line's object text. */
  readonly text: string;
  readonly repairs: readonly LineRepair[];
  readonly source: string;
  readonly line: number;
}

export interface RawBatchesContext {
  readonly db: SqlExecutor;
  readonly batchSize: number;
  readonly retry: IngestRetry;
  readonly tally: IngestTally;
  /** null: rejections are not counted. */
  readonly rejections: RejectionTracker | null;
  readonly onWritten: () => void;
}

export class RawBatches {
  readonly #pending: Record<RawTable, PendingEvent[]> = { [WORKFLOW_EVENTS_TABLE]: [], [TASK_EVENTS_TABLE]: [] };

  constructor(private readonly context: RawBatchesContext) {}

  async add(table: RawTable, event: PendingEvent): Promise<void> {
    this.#pending[table].push(event);
    if (this.#pending[table].length >= this.context.batchSize) await this.flush(table);
  }

  /** Writes the workflow events, then the task events. */
  async flushAll(): Promise<void> {
    await this.flush(WORKFLOW_EVENTS_TABLE);
    await this.flush(TASK_EVENTS_TABLE);
  }

  async flush(table: RawTable): Promise<void> {
    const items = this.#pending[table];
    if (items.length === 0) return;
    this.#pending[table] = [];
    const sql = insertStatement(table, items);
    await this.context.retry.run(() => `writing ${items.length} ${table === TASK_EVENTS_TABLE ? 'task' : 'workflow'} event(s) from ${describeRange(items)}`, () => this.context.db.query(sql));
    this.#count(table, items);
    await this.#countRejections(table, items);
    this.context.onWritten();
  }

  #count(table: RawTable, items: readonly PendingEvent[]): void {
    const { tally } = this.context;
    tally.batches++;
    tally.written[table] += items.length;
    for (const item of items) for (const r of item.repairs) tally.repairs[r]++;
  }

  async #countRejections(table: RawTable, items: readonly PendingEvent[]): Promise<void> {
    const { tally, rejections } = this.context;
    if (!rejections || tally.rejected === null) return;
    try {
      const found = await rejections.afterBatch(table, items.length, tally.rejectedSampleRoom);
      tally.rejected += found.count;
      for (const r of found.samples) {
        const item = found.exact ? items[r.rawId - found.lo - 1] : undefined;
        tally.rejectedSamples.push({ ...r, table, location: item ? `${item.source}:${item.line}` : null });
      }
    } catch {
      tally.rejected = null; // the data is written; only the attribution is lost
    }
  }
}

/**
 * SET LOCAL in the same simple-query string: one implicit transaction, so the setting ends with the statement and
 * a pooled connection is left as it was. Writers run with search_path = workflow_raw, as the forwarder login does.
 */
function insertStatement(table: RawTable, items: readonly PendingEvent[]): string {
  const insert = fluentBitInsertStatementForTexts(`${RAW_SCHEMA}.${table}`, RAW_TABLE_TAGS[table], items.map((i) => i.text));
  return `SET LOCAL search_path = ${RAW_SCHEMA}; ${insert}`;
}

function describeRange(items: readonly PendingEvent[]): string {
  const first = items[0];
  const last = items[items.length - 1];
  if (!first || !last) return 'nothing';
  if (first.source === last.source) return first.line === last.line ? `${first.source} line ${first.line}` : `${first.source} lines ${first.line}–${last.line}`;
  return `${first.source}:${first.line} to ${last.source}:${last.line}`;
}
