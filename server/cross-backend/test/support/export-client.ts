// The client side of the export tests: requests, a CSV parser of our own (RFC 4180, telling a quoted empty cell from
// an empty one), the exported rows back as the list's rows, and the whole GraphQL list paged by cursor to compare with.
import type { App } from '@workflow-index/core';

export type Row = Record<string, unknown>;
export interface Exported {
  readonly rows: Row[];
  /** The trailer: { complete, rows, error? } as the format writes it. */
  readonly trailer: { complete: boolean; rows: number; code?: string; message?: string };
}

export const LIST_FIELDS = 'id name namespace version status startDate endDate lastUpdate durationMs inputData outputData error { type title detail status instance }';

export function exportRequest(format: string, filter?: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Request {
  const params = new URLSearchParams({ format });
  if (filter !== undefined) params.set('filter', typeof filter === 'string' ? filter : JSON.stringify(filter));
  return new Request(`http://localhost/export/workflow-instances?${params.toString()}`, { headers, ...(signal === undefined ? {} : { signal }) });
}

export function parseExport(format: 'csv' | 'jsonl', text: string): Exported {
  return format === 'csv' ? parseCsvExport(text) : parseJsonlExport(text);
}

function parseJsonlExport(text: string): Exported {
  if (!text.endsWith('\n')) throw new Error('JSONL export does not end with a newline');
  const lines = text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as Row);
  const last = lines.pop() as { export?: { complete: boolean; rows: number; error?: { code: string; message: string } } };
  if (last.export === undefined) throw new Error('JSONL export has no trailer line');
  const { complete, rows, error } = last.export;
  return { rows: lines, trailer: { complete, rows, ...(error === undefined ? {} : { code: error.code, message: error.message }) } };
}

interface Cell {
  readonly value: string;
  readonly quoted: boolean;
}

/** RFC 4180 records (CRLF between records; quoted cells may hold commas, quotes doubled, CR and LF). */
export function parseCsv(text: string): Cell[][] {
  const records: Cell[][] = [];
  let record: Cell[] = [];
  let i = 0;
  while (i < text.length) {
    let value = '';
    let quoted = false;
    if (text[i] === '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted cell');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i];
        i++;
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`a quote inside an unquoted cell at ${i}`);
        value += text[i];
        i++;
      }
    }
    record.push({ value, quoted });
    if (text[i] === ',') {
      i++;
    } else if (text.startsWith('\r\n', i)) {
      i += 2;
      records.push(record);
      record = [];
    } else {
      throw new Error(`expected , or CRLF at ${i}, got ${JSON.stringify(text.slice(i, i + 10))}`);
    }
  }
  if (record.length > 0) throw new Error('the last record does not end with CRLF');
  return records;
}

const cellValue = (cell: Cell): string | null => (cell.value === '' && !cell.quoted ? null : cell.value);
const numberOf = (cell: Cell): number | null => {
  const value = cellValue(cell);
  return value === null ? null : Number(value);
};

function parseCsvExport(text: string): Exported {
  const records = parseCsv(text);
  const header = records.shift()?.map((c) => c.value) ?? [];
  for (const record of records) if (record.length !== header.length) throw new Error(`a record of ${record.length} cells under a header of ${header.length}`);
  const last = records.pop();
  if (last === undefined || !last[0]!.value.startsWith('#export-')) throw new Error('CSV export has no trailer record');
  const complete = last[0]!.value === '#export-complete';
  const trailer = { complete, rows: Number(last[1]!.value), ...(complete ? {} : { code: last[2]!.value, message: last[3]!.value }) };
  const rows = records.map((record) => {
    const at = (name: string): Cell => record[header.indexOf(name)] as Cell;
    const error = { type: cellValue(at('errorType')), title: cellValue(at('errorTitle')), detail: cellValue(at('errorDetail')), status: numberOf(at('errorStatus')), instance: cellValue(at('errorInstance')) };
    const row: Row = {};
    for (const name of ['id', 'name', 'namespace', 'version', 'status', 'startDate', 'endDate', 'lastUpdate', 'inputData', 'outputData']) row[name] = cellValue(at(name));
    row['durationMs'] = numberOf(at('durationMs'));
    row['error'] = Object.values(error).every((v) => v === null) ? null : error;
    return row;
  });
  return { rows, trailer };
}

/** Every run of getWorkflowInstances with this filter, all pages (by cursor), in the list's default order. */
export async function listAll(app: App, filter: unknown, headers: Record<string, string> = {}, pageSize = 1000): Promise<Row[]> {
  const query = `query ($filter: WorkflowInstanceFilterInput, $after: String, $limit: Int) { getWorkflowInstances(filter: $filter, after: $after, limit: $limit) { ${LIST_FIELDS} cursor } }`;
  const rows: Row[] = [];
  let after: string | null = null;
  for (;;) {
    const response = await app.fetch(new Request('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables: { filter: filter ?? null, after, limit: pageSize } }),
    }));
    const body = (await response.json()) as { data?: { getWorkflowInstances: Row[] }; errors?: unknown[] };
    if (body.errors !== undefined || body.data === undefined) throw new Error(`list failed: ${JSON.stringify(body.errors)}`);
    const page = body.data.getWorkflowInstances;
    for (const { cursor: _cursor, ...row } of page) rows.push(row);
    if (page.length < pageSize) return rows;
    after = page.at(-1)!['cursor'] as string;
  }
}
