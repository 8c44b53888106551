// One physical line of a CRI container log (containerd, CRI-O): `<RFC3339Nano> <stdout|stderr> <P|F>[:tags] <content>`.
// Read as latin1 text (one character per byte): the runtime cuts long lines at a byte count, possibly inside a
// UTF-8 character, so a part's content is bytes, valid UTF-8 only once the line is joined.

export interface CriLine {
  /** The runtime's time as written (RFC 3339, read with rfc3339ToEpochSeconds once per line, not per part). */
  readonly timeText: string;
  readonly stream: 'stdout' | 'stderr';
  /** `P`: a part that the next part of the same stream continues; `F`: the line's last (or only) part. */
  readonly partial: boolean;
  /** The content's bytes as latin1 text. */
  readonly content: string;
}

const CRI_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})) (stdout|stderr) ([PF])(?::\S*)?(?: (.*))?$/;

/** The CRI fields of a physical line read as latin1, or undefined when it is not a CRI line. */
export function parseCriLine(latin1: string): CriLine | undefined {
  const match = CRI_LINE.exec(latin1);
  if (!match) return undefined;
  return {
    timeText: match[1] ?? '',
    stream: match[2] === 'stderr' ? 'stderr' : 'stdout',
    partial: match[3] === 'P',
    content: match[4] ?? '',
  };
}

/** Epoch seconds of an RFC 3339 time, keeping the sub-millisecond digits that Date.parse drops. */
export function rfc3339ToEpochSeconds(text: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?([Zz]|[+-]\d{2}:?\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const zone = m[3] === 'z' ? 'Z' : (m[3] ?? 'Z');
  const whole = Date.parse(`${(m[1] ?? '').replace(/[t ]/, 'T')}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  if (Number.isNaN(whole)) return undefined;
  return whole / 1000 + (m[2] ? Number(`0.${m[2]}`) : 0);
}
