// What a forwarder does to an event line's text without changing the event: Fluent Bit re-prints every double
// with %.16g (a 17-digit double loses its last digit) and integral doubles as `x.0`, and a forwarder (or a
// re-configured parser) may emit the event's top-level fields in another order. Works on the printed text with a
// small scanner (strings skipped), so everything else — escapes, integers, payload bytes — stays as printed.
import { formatFluentBitDouble } from '@workflow-index/events';

/** C's printf("%.16g") of a finite double, as Fluent Bit prints doubles; integral values as `x.0`. */
export const flbDouble = formatFluentBitDouble;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Calls `visit` for each number literal outside strings; returns the text with the literals it replaced. */
function mapNumbers(line: string, visit: (literal: string) => string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      out += line.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(line);
      if (m) {
        out += visit(m[0]);
        i += m[0].length;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** The line as Fluent Bit re-prints it: doubles (a `.` or exponent in the literal) via %.16g; integers as they were. */
export function reprintNumbers(line: string): string {
  return mapNumbers(line, (literal) => (/[.eE]/.test(literal) && Number.isFinite(Number(literal)) ? flbDouble(Number(literal)) : literal));
}

/** The top-level members of a JSON object line (`"key":value` texts), split outside strings and nested values. */
export function topLevelMembers(line: string): string[] {
  const body = line.trim();
  if (!body.startsWith('{') || !body.endsWith('}')) throw new Error('not a JSON object line');
  const members: string[] = [];
  let depth = 0;
  let start = 1;
  for (let i = 1; i < body.length - 1; i++) {
    const c = body[i]!;
    if (c === '"') {
      i++;
      while (i < body.length && body[i] !== '"') i += body[i] === '\\' ? 2 : 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      members.push(body.slice(start, i));
      start = i + 1;
    }
  }
  const last = body.slice(start, body.length - 1);
  if (last.trim() !== '') members.push(last);
  return members;
}

/** The same object with its top-level members rotated by `by` places (another key order, same members). */
export function rotateMembers(line: string, by: number): string {
  const members = topLevelMembers(line);
  const k = ((by % members.length) + members.length) % members.length;
  return `{${[...members.slice(k), ...members.slice(0, k)].join(',')}}`;
}
