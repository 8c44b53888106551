// Fluent Bit's built-in multiline parsers `cri` and `docker` (src/multiline/flb_ml_parser_{cri,docker}.c), which
// the tail input uses to undo the container runtime's splitting of stdout lines longer than 16 KiB.
//   cri:    `<time> <stdout|stderr> <P|F> <content>`; parts with P are concatenated, per stream, up to the F part.
//   docker: `{"log":"…","stream":"…","time":"…"}`; a `log` not ending in "\n" continues in the next line.
// Lines are bytes: the runtime splits at a byte count, so one UTF-8 character can straddle two parts and
// only the joined content is valid UTF-8.
// fluent-bit/postgresql no longer uses these parsers (their flush timer cuts split lines, see below); the model
// keeps them so a configuration that does is shown to lose those lines.

import { FluentMap, fromPlain } from './fluent-value.js';

export interface TailRecord {
  readonly record: FluentMap;
  /** Record time in epoch seconds (flb_time as a double: seconds + nanoseconds / 1e9). */
  readonly time: number;
  /** 1-based line numbers in the log file that make up this record. */
  readonly sourceLines: readonly number[];
}

export const BUILTIN_MULTILINE_PARSERS = ['cri', 'docker'] as const;
export type BuiltinMultilineParser = (typeof BUILTIN_MULTILINE_PARSERS)[number];

export function isBuiltinMultilineParser(name: string): name is BuiltinMultilineParser {
  return (BUILTIN_MULTILINE_PARSERS as readonly string[]).includes(name);
}

/**
 * The multiline engine's flush: every pending group is force-flushed on a global timer, every 4 s counted from
 * the previous global flush (not from the group's last part). A P part still waiting for its F part at a tick
 * is emitted alone (observed defect 3 in shared/reference/fluent-bit-observed.md).
 */
export const MULTILINE_FLUSH_SECONDS = 4;

// Same shape as FLB_ML_CRI_REGEX; matched against the line read as latin1 so offsets are byte offsets.
const CRI_LINE = /^(.+?) (stdout|stderr) (F|P) (.*)$/s;

interface Pending {
  readonly first: Record<string, unknown>;
  readonly time: number;
  readonly parts: Buffer[];
  readonly lines: number[];
}

/** The non-empty physical lines of a file as tail reads them, with their 1-based line numbers. */
export function* physicalLines(content: Buffer): Generator<{ readonly line: Buffer; readonly lineNo: number }> {
  let start = 0;
  let lineNo = 0;
  while (start < content.length) {
    let end = content.indexOf(0x0a, start);
    if (end === -1) end = content.length;
    const line = content.subarray(start, end);
    start = end + 1;
    lineNo += 1;
    if (line.length > 0) yield { line, lineNo };
  }
}

/**
 * Splits file content into records the way tail + `multiline.parser <parsers>` does. `arrival(line)` is the
 * time (seconds since the input started) at which tail reads that physical line; by default all at once.
 */
export function readTailRecords(
  content: Buffer,
  parsers: readonly BuiltinMultilineParser[],
  now: () => number,
  arrival: (line: number) => number = () => 0,
): TailRecord[] {
  const records: TailRecord[] = [];
  const pending = new Map<string, Pending>();
  const flush = (key: string): void => {
    const p = pending.get(key);
    if (!p) return;
    pending.delete(key);
    records.push({ record: fromPlain({ ...p.first, log: Buffer.concat(p.parts) }) as FluentMap, time: p.time, sourceLines: p.lines });
  };
  let nextTick = MULTILINE_FLUSH_SECONDS;

  for (const { line, lineNo } of physicalLines(content)) {
    const at = arrival(lineNo);
    if (at >= nextTick) {
      for (const key of [...pending.keys()]) flush(key);
      while (nextTick <= at) nextTick += MULTILINE_FLUSH_SECONDS;
    }

    let handled = false;
    for (const parser of parsers) {
      const part = parser === 'cri' ? parseCriLine(line) : parseDockerLine(line);
      if (!part) continue;
      handled = true;
      const key = `${parser}:${part.stream}`;
      const open = pending.get(key);
      if (open) {
        open.parts.push(part.content);
        open.lines.push(lineNo);
      } else {
        pending.set(key, { first: part.fields, time: part.time, parts: [part.content], lines: [lineNo] });
      }
      if (part.last) flush(key);
      break;
    }
    if (!handled) records.push({ record: new FluentMap([['log', Buffer.from(line)]]), time: now(), sourceLines: [lineNo] });
  }
  // At the end of the input Fluent Bit flushes unterminated groups at the next tick.
  for (const key of [...pending.keys()]) flush(key);
  return records;
}

interface LinePart {
  readonly stream: string;
  readonly fields: Record<string, unknown>;
  readonly time: number;
  readonly content: Buffer;
  readonly last: boolean;
}

function parseCriLine(line: Buffer): LinePart | undefined {
  const match = CRI_LINE.exec(line.toString('latin1'));
  if (!match) return undefined;
  const [, timeText, stream, tag, content] = match;
  const time = parseRfc3339(timeText!);
  if (time === undefined) return undefined;
  const offset = line.length - Buffer.byteLength(content!, 'latin1');
  return { stream: stream!, fields: { time: timeText, stream, _p: tag }, time, content: line.subarray(offset), last: tag === 'F' };
}

function parseDockerLine(line: Buffer): LinePart | undefined {
  if (line[0] !== 0x7b) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const fields = parsed as Record<string, unknown>;
  const log = fields['log'];
  const stream = fields['stream'];
  const time = typeof fields['time'] === 'string' ? parseRfc3339(fields['time']) : undefined;
  if (typeof log !== 'string' || typeof stream !== 'string' || time === undefined) return undefined;
  return { stream, fields, time, content: Buffer.from(log, 'utf8'), last: log.endsWith('\n') };
}

/** `2026-05-12T09:14:03.512337000Z` (or with an offset) → epoch seconds, fraction kept to the nanosecond digit. */
export function parseRfc3339(text: string): number | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/.exec(text);
  if (!match) return undefined;
  const zone = match[3] === 'Z' ? 'Z' : `${match[3]!.slice(0, 3)}:${match[3]!.slice(-2)}`;
  const millis = Date.parse(`${match[1]}${zone}`);
  if (Number.isNaN(millis)) return undefined;
  const fraction = match[2] ? Number(`0.${match[2]}`) : 0;
  return millis / 1000 + fraction;
}
