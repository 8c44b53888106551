// The body of an export: a pull stream that reads the next page only when the consumer (the socket, through
// compression when on) asks for more, so at most one page is in memory however many runs match. It stops reading
// when the client goes away (the request's signal, or the body cancelled), and a read that fails mid-way ends the
// body cleanly with a trailer saying the export is truncated and why (the status line was sent long before).
import type { Logger } from '../logger.js';
import type { WorkflowInstanceRecord } from '../reader.js';
import { exportedRun } from './export-format.js';
import type { ExportEnd, ExportWriter } from './export-format.js';
import { describeExportError } from './export-errors.js';
import type { RunPages } from './run-pages.js';

export interface ExportStreamOptions {
  readonly pages: RunPages;
  /** The first page, already read (its failure was still an HTTP error status). */
  readonly first: readonly WorkflowInstanceRecord[];
  readonly writer: ExportWriter;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** Called once: how the export ended, or 'cancelled' when the client went away. */
  readonly onEnd: (end: ExportEnd | 'cancelled') => void;
}

const encoder = new TextEncoder();

export function exportStream(options: ExportStreamOptions): ReadableStream<Uint8Array> {
  const { pages, writer, signal } = options;
  let rows = 0;
  let first: readonly WorkflowInstanceRecord[] | null = options.first;
  let ended = false;
  const end = (how: ExportEnd | 'cancelled'): void => {
    if (ended) return;
    ended = true;
    options.onEnd(how);
  };
  const text = (page: readonly WorkflowInstanceRecord[], prefix: string): string => {
    let out = prefix;
    for (const row of page) out += writer.row(exportedRun(row));
    rows += page.length;
    return out;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (ended) return;
        let chunk: string;
        if (first !== null) {
          chunk = text(first, writer.header());
          first = null;
        } else {
          let page: WorkflowInstanceRecord[];
          try {
            page = await pages.next();
          } catch (error) {
            const problem = describeExportError(error, options.logger);
            const truncated: ExportEnd = { complete: false, rows, code: problem.code, message: problem.message };
            controller.enqueue(encoder.encode(writer.trailer(truncated)));
            controller.close();
            end(truncated);
            return;
          }
          chunk = text(page, '');
        }
        if (signal.aborted) {
          end('cancelled');
          controller.close();
          return;
        }
        if (pages.done) {
          const complete: ExportEnd = { complete: true, rows };
          chunk += writer.trailer(complete);
          controller.enqueue(encoder.encode(chunk));
          controller.close();
          end(complete);
          return;
        }
        controller.enqueue(encoder.encode(chunk));
      },
      cancel() {
        end('cancelled');
      },
    },
    // Nothing read ahead: the next page is read when the consumer has taken the last one.
    { highWaterMark: 0 },
  );
}
