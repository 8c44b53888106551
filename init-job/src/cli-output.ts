// Where the CLI writes: results (migration lines, SQL, status, summaries) go to stdout so they can be piped;
// progress, retries and errors are plain lines on stderr. Nothing written here may contain a secret.
import type { Writable } from 'node:stream';

export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
}

export interface CliOutput {
  /** A result line on stdout. */
  out(line: string): void;
  /** A log line on stderr. */
  log(line: string): void;
}

export function cliOutput(io: CliIo): CliOutput {
  return {
    out: (line) => void io.stdout.write(`${line}\n`),
    log: (line) => void io.stderr.write(`${line}\n`),
  };
}

export const EXIT_OK = 0;
/** The database, a migration or the ingestion failed. */
export const EXIT_FAILURE = 1;
/** Invalid command line or configuration: nothing was attempted. */
export const EXIT_USAGE = 2;

/** A readable reason for any thrown value, including Node's AggregateError (empty message, one error per address). */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    const inner = [...new Set(error.errors.map((e: unknown) => reasonOf(e)))];
    return inner.join('; ');
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || String(code ?? error.name);
    return typeof code === 'string' && /^[A-Z0-9]{5}$/.test(code) && !message.includes(code) ? `${message} (SQLSTATE ${code})` : message;
  }
  return String(error);
}
