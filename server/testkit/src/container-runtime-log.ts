// How a container runtime writes a container's stdout/stderr to /var/log/containers/*.log, for the tests that
// stand in for a node: the CRI format of containerd/CRI-O (`<RFC3339Nano> <stream> <P|F> <content>`) and
// docker's json-file format. Both split a line longer than 16 KiB into parts of exactly 16 KiB of content
// (byte-wise, even inside a UTF-8 character): CRI marks all but the last part `P`, docker leaves the "\n"
// off all but the last part.

export const RUNTIME_MAX_LINE_BYTES = 16 * 1024;

export interface OutputLine {
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
}

export interface PhysicalLine {
  /** 1-based line number in the file. */
  readonly line: number;
  /** Index of the printed line this part belongs to. */
  readonly source: number;
  readonly partial: boolean;
}

export interface RuntimeLogFile {
  readonly content: Buffer;
  readonly lines: readonly PhysicalLine[];
}

export interface RuntimeLogOptions {
  /** Epoch microseconds of the first line; each following line is 137 µs later. */
  readonly startMicros?: number;
  readonly maxLineBytes?: number;
}

const DEFAULT_START_MICROS = 1_778_577_241_000_000; // 2026-05-12T09:14:01Z, just before the fixture's first event

/** RFC3339 with nine fraction digits, as the kubelet's CRI log writer prints it. */
export function criTimestamp(micros: number): string {
  const seconds = Math.floor(micros / 1e6);
  const fraction = String(micros - seconds * 1e6).padStart(6, '0');
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}000Z`;
}

function split(text: string, max: number): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return [bytes];
  const parts: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += max) parts.push(bytes.subarray(offset, offset + max));
  return parts;
}

export function criLogFile(output: readonly OutputLine[], options: RuntimeLogOptions = {}): RuntimeLogFile {
  const max = options.maxLineBytes ?? RUNTIME_MAX_LINE_BYTES;
  let micros = options.startMicros ?? DEFAULT_START_MICROS;
  const chunks: Buffer[] = [];
  const lines: PhysicalLine[] = [];
  output.forEach((entry, source) => {
    const parts = split(entry.text, max);
    const time = criTimestamp(micros);
    micros += 137;
    parts.forEach((part, i) => {
      const partial = i < parts.length - 1;
      chunks.push(Buffer.from(`${time} ${entry.stream} ${partial ? 'P' : 'F'} `, 'utf8'), part, Buffer.from('\n'));
      lines.push({ line: lines.length + 1, source, partial });
    });
  });
  return { content: Buffer.concat(chunks), lines };
}

export function dockerJsonLogFile(output: readonly OutputLine[], options: RuntimeLogOptions = {}): RuntimeLogFile {
  const max = options.maxLineBytes ?? RUNTIME_MAX_LINE_BYTES;
  let micros = options.startMicros ?? DEFAULT_START_MICROS;
  const chunks: string[] = [];
  const lines: PhysicalLine[] = [];
  output.forEach((entry, source) => {
    if (Buffer.byteLength(entry.text) !== entry.text.length && Buffer.byteLength(entry.text) > max) {
      // docker's Go JSON encoder would turn split characters into U+FFFD; the tests only split ASCII lines.
      throw new Error('dockerJsonLogFile splits ASCII lines only');
    }
    const parts = split(entry.text, max);
    const time = criTimestamp(micros);
    micros += 137;
    parts.forEach((part, i) => {
      const partial = i < parts.length - 1;
      chunks.push(`${JSON.stringify({ log: `${part.toString('utf8')}${partial ? '' : '\n'}`, stream: entry.stream, time })}\n`);
      lines.push({ line: lines.length + 1, source, partial });
    });
  });
  return { content: Buffer.from(chunks.join(''), 'utf8'), lines };
}

/** The kubelet's symlink to a container's log: /var/log/containers/<pod>_<namespace>_<container>-<64 hex>.log */
export function containerLogPath(pod: string, namespace: string, container: string, idSeed = 1): string {
  const id = (idSeed.toString(16).padStart(8, '0')).repeat(8);
  return `/var/log/containers/${pod}_${namespace}_${container}-${id}.log`;
}

/** The kubelet's file itself (what our Fluent Bit tails): /var/log/pods/<namespace>_<pod>_<pod uid>/<container>/<restart count>.log */
export function podLogPath(pod: string, namespace: string, container: string, idSeed = 1, restartCount = 0): string {
  const hex = idSeed.toString(16).padStart(8, '0');
  const uid = `${hex}-${hex.slice(0, 4)}-4${hex.slice(1, 4)}-8${hex.slice(1, 4)}-${hex}${hex.slice(0, 4)}`;
  return `/var/log/pods/${namespace}_${pod}_${uid}/${container}/${restartCount}.log`;
}
