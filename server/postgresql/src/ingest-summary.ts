// What an ingest run reports: the counts as they grow, the summary at the end (or with the error that ended it).
import { LINE_REPAIRS, type LineRepair } from '@workflow-index/events';
import { TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from './fluent-bit-statement.js';
import type { RawTable } from './ingest-raw-tables.js';

export interface IngestProgress {
  readonly source: string;
  readonly linesRead: number;
  readonly eventsWritten: number;
  readonly skipped: number;
  readonly malformed: number;
}

export interface MalformedLine {
  readonly source: string;
  readonly line: number;
  readonly reason: string;
}

export interface RejectedEvent {
  readonly table: RawTable;
  readonly rawId: number;
  /** `file:line` when the raw id could be mapped back to the input (no concurrent writer interleaved). */
  readonly location: string | null;
  readonly eventType: string | null;
  readonly reason: string;
}

export interface IngestSummary {
  readonly sources: number;
  readonly linesRead: number;
  readonly eventsWritten: { readonly workflow_events_raw: number; readonly task_events_raw: number; readonly total: number };
  readonly batches: number;
  readonly retries: number;
  /** Lines that are not events: plain text, JSON that is not an object or has no matching eventType. */
  readonly skipped: number;
  /** Lines that look like events (they mention eventType and the prefix) but are not valid JSON objects. */
  readonly malformed: number;
  readonly malformedSamples: readonly MalformedLine[];
  /** Events stored in the raw tables but rejected by the normalizer (rows in workflow_index.ingest_errors); null when the role cannot read that table. */
  readonly rejected: number | null;
  readonly rejectedSamples: readonly RejectedEvent[];
  /** Events written after the line-repair rule changed them, per repair kind (an event can count under several). */
  readonly repairs: Readonly<Record<LineRepair, number>>;
  readonly durationMs: number;
  readonly eventsPerSecond: number;
}

export class IngestError extends Error {
  override readonly name = 'IngestError';
  constructor(
    message: string,
    /** What was written before the failure. */
    readonly summary: IngestSummary,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The counts of one run. Lines read are the finished sources' and those of the source being read. */
export class IngestTally {
  readonly #started = performance.now();
  readonly #sources: number;
  readonly #sampleLimit: number;
  #linesOfFinishedSources = 0;
  #reading: { readonly linesRead: number } | undefined;
  currentSource = '';
  skipped = 0;
  malformed = 0;
  batches = 0;
  retries = 0;
  /** null once rejections cannot be counted (no access to ingest_errors, or a failed look-up). */
  rejected: number | null = 0;
  readonly written: Record<RawTable, number> = { [WORKFLOW_EVENTS_TABLE]: 0, [TASK_EVENTS_TABLE]: 0 };
  readonly repairs = noRepairs();
  readonly malformedSamples: MalformedLine[] = [];
  readonly rejectedSamples: RejectedEvent[] = [];

  constructor(sources: number, sampleLimit: number) {
    this.#sources = sources;
    this.#sampleLimit = sampleLimit;
  }

  get linesRead(): number {
    return this.#linesOfFinishedSources + (this.#reading?.linesRead ?? 0);
  }

  /** Counts the lines of `reader` from now on, after those of the sources before it. */
  reading(reader: { readonly linesRead: number }): void {
    this.#linesOfFinishedSources = this.linesRead;
    this.#reading = reader;
  }

  get eventsWritten(): number {
    return this.written[WORKFLOW_EVENTS_TABLE] + this.written[TASK_EVENTS_TABLE];
  }

  /** Room left for samples of rejected events. */
  get rejectedSampleRoom(): number {
    return this.#sampleLimit - this.rejectedSamples.length;
  }

  addMalformed(line: MalformedLine): void {
    this.malformed++;
    if (this.malformedSamples.length < this.#sampleLimit) this.malformedSamples.push(line);
  }

  progress(): IngestProgress {
    return { source: this.currentSource, linesRead: this.linesRead, eventsWritten: this.eventsWritten, skipped: this.skipped, malformed: this.malformed };
  }

  summary(): IngestSummary {
    const durationMs = Math.round(performance.now() - this.#started);
    const total = this.eventsWritten;
    return {
      sources: this.#sources,
      linesRead: this.linesRead,
      eventsWritten: { workflow_events_raw: this.written[WORKFLOW_EVENTS_TABLE], task_events_raw: this.written[TASK_EVENTS_TABLE], total },
      batches: this.batches,
      retries: this.retries,
      skipped: this.skipped,
      malformed: this.malformed,
      malformedSamples: [...this.malformedSamples],
      rejected: this.rejected,
      rejectedSamples: [...this.rejectedSamples],
      repairs: { ...this.repairs },
      durationMs,
      eventsPerSecond: durationMs > 0 ? Math.round((total * 1000) / durationMs) : total,
    };
  }
}

/** The summary of a run that wrote nothing. */
export function emptySummary(): IngestSummary {
  return {
    sources: 0,
    linesRead: 0,
    eventsWritten: { workflow_events_raw: 0, task_events_raw: 0, total: 0 },
    batches: 0,
    retries: 0,
    skipped: 0,
    malformed: 0,
    malformedSamples: [],
    rejected: null,
    rejectedSamples: [],
    repairs: noRepairs(),
    durationMs: 0,
    eventsPerSecond: 0,
  };
}

function noRepairs(): Record<LineRepair, number> {
  return Object.fromEntries(LINE_REPAIRS.map((r) => [r, 0])) as Record<LineRepair, number>;
}
