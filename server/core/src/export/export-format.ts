// How an exported run is written: the fields of the runs list (getWorkflowInstances) as GraphQL serves them —
// timestamps ISO-8601 UTC with Z, durationMs, payloads as JSON text — in CSV (RFC 4180) or JSONL. Each export ends
// with a trailer saying whether it is complete, so a client tells a whole export from one cut short by an error
// (docs/api.md, "Export").
//
// CSV keeps data exact: a cell is written as the service holds it, so a cell may start with = + - @ and a spreadsheet
// that evaluates formulas on import may run it. Rewriting such cells (the ' prefix of OWASP's advice) would change
// what a history service reports — ids, names, JSON text — for every other consumer; open exports in a spreadsheet
// with the columns imported as text.
import { formatTimestampForOutput } from '../date-time.js';
import { durationMs } from '../duration.js';
import type { ErrorRecord, Timestamp, WorkflowInstanceRecord } from '../reader.js';

export type ExportFormat = 'csv' | 'jsonl';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'jsonl'];

/** A run as the list serves it (the GraphQL field names; `error` null or its five fields). */
export interface ExportedRun {
  readonly id: string;
  readonly name: string;
  readonly namespace: string | null;
  readonly version: string | null;
  readonly status: string;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly lastUpdate: string | null;
  readonly durationMs: number | null;
  readonly inputData: string | null;
  readonly outputData: string | null;
  readonly error: ErrorRecord | null;
}

/** How an export ended: every matching row written, or cut short by an error (then what it was). */
export type ExportEnd = { readonly complete: true; readonly rows: number } | { readonly complete: false; readonly rows: number; readonly code: string; readonly message: string };

const time = (value: Timestamp | null): string | null => (value === null ? null : formatTimestampForOutput(value));

export function exportedRun(row: WorkflowInstanceRecord): ExportedRun {
  return {
    id: row.id,
    name: row.name,
    namespace: row.namespace,
    version: row.version,
    status: row.status,
    startDate: time(row.startDate),
    endDate: time(row.endDate),
    lastUpdate: time(row.lastUpdate),
    durationMs: durationMs(row),
    inputData: row.inputData ?? null,
    outputData: row.outputData ?? null,
    error: row.error === null ? null : { type: row.error.type, title: row.error.title, detail: row.error.detail, status: row.error.status, instance: row.error.instance },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// CSV

/** The header row's names, in column order; the error's fields are flattened as errorType … errorInstance. */
export const CSV_COLUMNS = [
  'id', 'name', 'namespace', 'version', 'status', 'startDate', 'endDate', 'lastUpdate', 'durationMs', 'inputData', 'outputData',
  'errorType', 'errorTitle', 'errorDetail', 'errorStatus', 'errorInstance',
] as const;

/** The first cell of the CSV trailer record: always the last record (a client reads the last record, not any that starts so). */
export const CSV_TRAILER_COMPLETE = '#export-complete';
export const CSV_TRAILER_TRUNCATED = '#export-truncated';

const NEEDS_QUOTES = /[",\r\n]/;

/** RFC 4180: quoted when it holds a quote, comma, CR or LF (quotes doubled); null is an empty cell, '' is "". */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  if (text === '') return '""';
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvRecord = (cells: readonly (string | number | null)[]): string => `${cells.map(csvCell).join(',')}\r\n`;

export function csvHeader(): string {
  return csvRecord(CSV_COLUMNS);
}

export function csvRow(run: ExportedRun): string {
  const e = run.error;
  return csvRecord([
    run.id, run.name, run.namespace, run.version, run.status, run.startDate, run.endDate, run.lastUpdate, run.durationMs, run.inputData, run.outputData,
    e?.type ?? null, e?.title ?? null, e?.detail ?? null, e?.status ?? null, e?.instance ?? null,
  ]);
}

/**
 * The last record, as wide as the header: `#export-complete,<rows>` or `#export-truncated,<rows>,<code>,<message>`,
 * the other cells empty.
 */
export function csvTrailer(end: ExportEnd): string {
  const cells: (string | number | null)[] = end.complete ? [CSV_TRAILER_COMPLETE, end.rows] : [CSV_TRAILER_TRUNCATED, end.rows, end.code, end.message];
  while (cells.length < CSV_COLUMNS.length) cells.push(null);
  return csvRecord(cells);
}

// ---------------------------------------------------------------------------------------------------------------
// JSONL

export function jsonlRow(run: ExportedRun): string {
  return `${JSON.stringify(run)}\n`;
}

/** The last line: `{"export":{"complete":true,"rows":n}}`, or with complete false and the error's code and message. */
export function jsonlTrailer(end: ExportEnd): string {
  return `${JSON.stringify({ export: end.complete ? { complete: true, rows: end.rows } : { complete: false, rows: end.rows, error: { code: end.code, message: end.message } } })}\n`;
}

export interface ExportWriter {
  readonly contentType: string;
  readonly extension: string;
  header(): string;
  row(run: ExportedRun): string;
  trailer(end: ExportEnd): string;
}

export const EXPORT_WRITERS: Readonly<Record<ExportFormat, ExportWriter>> = {
  csv: { contentType: 'text/csv; charset=utf-8; header=present', extension: 'csv', header: csvHeader, row: csvRow, trailer: csvTrailer },
  jsonl: { contentType: 'application/x-ndjson; charset=utf-8', extension: 'jsonl', header: () => '', row: jsonlRow, trailer: jsonlTrailer },
};
