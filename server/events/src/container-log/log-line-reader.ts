// Reads the lines an application printed from a log source, whatever wrote it: JSONL as printed, CRI container
// logs, or docker json-file logs, the form told line by line. Container records are unwrapped and the parts of a
// line the runtime split are joined, so each line comes out whole, after the line-repair rule, with where it
// starts and the runtime's time of it. Sources are streamed: their size does not matter.
//
// Physical lines are read as latin1 (one character per byte) and decoded as UTF-8 only once a line is whole: the
// runtime splits at a byte count, possibly inside a multi-byte character, so CRI parts are joined as bytes and a
// character split across parts is whole again before the repair.
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { LINE_REPAIRS, repairEventLine, type LineRepair } from '../event-line-repair.js';
import { parseCriLine, rfc3339ToEpochSeconds } from './cri-line.js';
import { parseJsonLogLine } from './docker-json-line.js';
import { PartialLineJoiner } from './partial-line-joiner.js';

/** One line as the application printed it, after the line-repair rule. */
export interface LogLine {
  readonly text: string;
  /** The repairs made to the line; for a json-file line, those of its record's JSON string too. */
  readonly repairs: readonly LineRepair[];
  /** 1-based number of the physical line it starts on. */
  readonly line: number;
  /** The container runtime's time of the line (of its first part), epoch seconds; undefined for a bare line. */
  readonly time: number | undefined;
  /** The line's JSON value when telling its form needed parsing it already (a bare JSON object line). */
  readonly parsed: { readonly value: unknown } | undefined;
}

/** A part of a CRI line: bytes as latin1 text, and the runtime's time as written. */
interface CriPart {
  readonly kind: 'cri';
  readonly content: string;
  readonly line: number;
  readonly timeText: string;
}

/** A part of a json-file line: text already decoded from the record's JSON string. */
interface DockerPart {
  readonly kind: 'docker';
  readonly content: string;
  readonly line: number;
  readonly time: number | undefined;
  /** Repairs of the part's own record (invalid bytes in its JSON string). */
  readonly repairs: readonly LineRepair[];
}

type Part = CriPart | DockerPart;

const UTF8_BOM = '\xEF\xBB\xBF';

/** Reads one source: `lines()` first, then `unfinished()`. */
export class LogLineReader {
  readonly #input: Readable;
  readonly #joiner = new PartialLineJoiner<Part>();
  #linesRead = 0;

  constructor(input: Readable) {
    this.#input = input;
  }

  /** Physical lines read so far (parts of split lines and a leading byte order mark's line included). */
  get linesRead(): number {
    return this.#linesRead;
  }

  /** Every whole line, in the order its last part was read. */
  async *lines(): AsyncGenerator<LogLine> {
    const physical = createInterface({ input: asLatin1(this.#input), crlfDelay: Infinity });
    for await (const raw of physical) {
      this.#linesRead++;
      const line = this.#read(this.#linesRead === 1 && raw.startsWith(UTF8_BOM) ? raw.slice(UTF8_BOM.length) : raw);
      if (line) yield line;
    }
  }

  /**
   * After `lines()`: each line whose last part never came (the file was cut mid-line) as far as it got, in the
   * order their first parts were read. The reader decides what they are worth; an event cut short is not JSON.
   */
  unfinished(): LogLine[] {
    return this.#joiner.drain().map((parts) => joinParts(parts, []));
  }

  #read(latin1: string): LogLine | undefined {
    const cri = parseCriLine(latin1);
    if (cri) return this.#part(cri.stream, { kind: 'cri', content: cri.content, line: this.#linesRead, timeText: cri.timeText }, cri.partial);
    const repaired = repairEventLine(Buffer.from(latin1, 'latin1'));
    const json = parseJsonLogLine(repaired.text);
    if (json.kind === 'docker') {
      const { content, time, stream, partial } = json.line;
      return this.#part(`docker:${stream}`, { kind: 'docker', content, line: this.#linesRead, time, repairs: repaired.repairs }, partial);
    }
    // Fields written out rather than spread: this runs for every line of a JSONL file.
    return { text: repaired.text, repairs: repaired.repairs, line: this.#linesRead, time: undefined, parsed: json.kind === 'json' ? { value: json.value } : undefined };
  }

  /** The whole line when `part` ends it. */
  #part(key: string, part: Part, partial: boolean): LogLine | undefined {
    const parts = this.#joiner.add(key, part, !partial);
    return parts && joinParts(parts, part.kind === 'docker' ? part.repairs : []);
  }
}

/** The line of `parts`; `recordRepairs`: those of the json-file record that ended it. */
function joinParts(parts: readonly Part[], recordRepairs: readonly LineRepair[]): LogLine {
  const first = parts[0]!;
  const content = parts.length === 1 ? first.content : parts.map((p) => p.content).join('');
  const repaired = repairEventLine(Buffer.from(content, first.kind === 'cri' ? 'latin1' : 'utf8'));
  const time = first.kind === 'cri' ? rfc3339ToEpochSeconds(first.timeText) : first.time;
  return { text: repaired.text, repairs: mergeRepairs(recordRepairs, repaired.repairs), line: first.line, time, parsed: undefined };
}

function mergeRepairs(a: readonly LineRepair[], b: readonly LineRepair[]): readonly LineRepair[] {
  return a.length === 0 ? b : b.length === 0 ? a : LINE_REPAIRS.filter((r) => a.includes(r) || b.includes(r));
}

/** The source's bytes as latin1 text, whatever the stream yields (Buffers, or strings already decoded as UTF-8). */
function asLatin1(input: Readable): Readable {
  return Readable.from(
    (async function* () {
      for await (const chunk of input as AsyncIterable<unknown>) {
        if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8').toString('latin1');
        else if (chunk instanceof Uint8Array) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      }
    })(),
  );
}
