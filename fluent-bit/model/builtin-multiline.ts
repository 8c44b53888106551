// Fluent Bit's built-in multiline parsers `cri` and `docker` (src/multiline/flb_ml_parser_{cri,docker}.c), which
// the tail input uses to undo the container runtime's splitting of stdout lines longer than 16 KiB.
//   cri:    `<time> <stdout|stderr> <P|F> <content>`; parts with P are concatenated, per stream, up to the F part.
//   docker: `{"log":"…","stream":"…","time":"…"}`; a `log` not ending in "\n" continues in the next line.
// Lines are bytes: the runtime splits at a byte count, so one UTF-8 character can straddle two parts and
// only the joined content is valid UTF-8.
// The joining is the one every reader shares (PartialLineJoiner); what is Fluent Bit's own: lines are recognised
// with its regex and time format, the joined record keeps the first part's fields and time, and a line still
// waiting for its last part is emitted as far as it got at the global flush tick and at the end of the input.
// fluent-bit/postgresql does not use these parsers (their flush timer cuts split lines, see below); the model
// keeps them to show that a configuration using them loses those lines.

import { PartialLineJoiner } from '@workflow-index/events';
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

interface NumberedPart {
  readonly part: LinePart;
  readonly lineNo: number;
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
  const joiner = new PartialLineJoiner<NumberedPart>();
  let nextTick = MULTILINE_FLUSH_SECONDS;

  for (const { line, lineNo } of physicalLines(content)) {
    const at = arrival(lineNo);
    if (at >= nextTick) {
      for (const parts of joiner.drain()) records.push(joinedRecord(parts));
      while (nextTick <= at) nextTick += MULTILINE_FLUSH_SECONDS;
    }
    const parsed = parseLinePart(line, parsers);
    if (!parsed) {
      records.push({ record: new FluentMap([['log', Buffer.from(line)]]), time: now(), sourceLines: [lineNo] });
      continue;
    }
    const whole = joiner.add(`${parsed.parser}:${parsed.part.stream}`, { part: parsed.part, lineNo }, parsed.part.last);
    if (whole) records.push(joinedRecord(whole));
  }
  // At the end of the input Fluent Bit flushes unterminated groups at the next tick.
  for (const parts of joiner.drain()) records.push(joinedRecord(parts));
  return records;
}

/** The part as the first of `parsers` that recognises the line reads it. */
function parseLinePart(line: Buffer, parsers: readonly BuiltinMultilineParser[]): { readonly parser: BuiltinMultilineParser; readonly part: LinePart } | undefined {
  for (const parser of parsers) {
    const part = parser === 'cri' ? parseCriLine(line) : parseDockerLine(line);
    if (part) return { parser, part };
  }
  return undefined;
}

/** The record of a (joined) line: the first part's fields and time, the parts' bytes as `log`. */
function joinedRecord(parts: readonly NumberedPart[]): TailRecord {
  const first = parts[0]!.part;
  const log = Buffer.concat(parts.map((p) => p.part.content));
  return { record: fromPlain({ ...first.fields, log }) as FluentMap, time: first.time, sourceLines: parts.map((p) => p.lineNo) };
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
