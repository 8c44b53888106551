// One line of docker's json-file log driver: `{"log":"<content>\n","stream":"stdout","time":"<RFC3339Nano>"}`.
// The content is a JSON string, so it is text already decoded; a `log` without the final "\n" is a part that the
// next record of the same stream continues.
import { rfc3339ToEpochSeconds } from './cri-line.js';

export interface DockerLine {
  /** The record's `time` in epoch seconds; undefined when absent or unreadable. */
  readonly time: number | undefined;
  readonly stream: string;
  /** The `log` lacks its final "\n": the next record of the same stream continues the line. */
  readonly partial: boolean;
  /** The `log` without its line ending. */
  readonly content: string;
}

export type JsonLogLine =
  | { readonly kind: 'docker'; readonly line: DockerLine }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'other' };

/**
 * A Docker json-file record, another JSON value (parsed once, so the caller need not parse it again), or
 * neither (not JSON; telling a broken event from plain text is the caller's classification). A record with an
 * `eventType` is an event that happens to hold `log` and `stream`, not a json-file record.
 */
export function parseJsonLogLine(text: string): JsonLogLine {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{')) return { kind: 'other' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { kind: 'other' };
  }
  if (isPlainObject(value) && typeof value['log'] === 'string' && typeof value['stream'] === 'string' && !('eventType' in value)) {
    return { kind: 'docker', line: dockerLine(value['log'], value['stream'], value['time']) };
  }
  return { kind: 'json', value };
}

function dockerLine(log: string, stream: string, time: unknown): DockerLine {
  const partial = !log.endsWith('\n');
  return {
    time: typeof time === 'string' ? rfc3339ToEpochSeconds(time) : undefined,
    stream,
    partial,
    content: partial ? log : log.replace(/\r?\n$/, ''),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
