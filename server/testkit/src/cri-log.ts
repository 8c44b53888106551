// A container log file as containerd's CRI plugin writes it: `<time> <stream> <P|F> <content>` per physical line,
// the time in Go's RFC3339Nano (nanoseconds, trailing zeros trimmed: `…:05.1234Z`, `…:05Z`), a printed line longer
// than the runtime's buffer (16 KiB) cut into parts at byte offsets (even inside a UTF-8 character), all but the
// last marked P. Times come from the caller, so a test can give each line the moment the runtime read it.

export const CRI_MAX_LINE_BYTES = 16 * 1024;

export interface PrintedLine {
  /** The line's bytes (UTF-8 text or raw bytes), without the newline. */
  readonly content: string | Buffer;
  /** When the runtime read it, epoch nanoseconds. */
  readonly timeNanos: bigint;
  readonly stream?: 'stdout' | 'stderr';
}

/** Go's time.RFC3339Nano in UTC: up to nine fraction digits, trailing zeros (and a bare dot) dropped. */
export function rfc3339Nano(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

export function criLog(lines: readonly PrintedLine[], maxLineBytes = CRI_MAX_LINE_BYTES): Buffer {
  const out: Buffer[] = [];
  for (const line of lines) {
    const bytes = typeof line.content === 'string' ? Buffer.from(line.content, 'utf8') : line.content;
    const time = rfc3339Nano(line.timeNanos);
    const stream = line.stream ?? 'stdout';
    const parts: Buffer[] = [];
    for (let offset = 0; offset < bytes.length; offset += maxLineBytes) parts.push(bytes.subarray(offset, offset + maxLineBytes));
    if (parts.length === 0) parts.push(Buffer.alloc(0));
    parts.forEach((part, i) => {
      out.push(Buffer.from(`${time} ${stream} ${i < parts.length - 1 ? 'P' : 'F'} `), part, Buffer.from('\n'));
    });
  }
  return Buffer.concat(out);
}
