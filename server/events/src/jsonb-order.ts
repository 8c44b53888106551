// jsonb's btree order (compareJsonbContainers), which the PostgreSQL normalizer uses to break ties between payloads
// (two spellings of one task event keep the greater payload; equal-time workflow events pick the greater input or
// output): Object > Array > Boolean > Number > String > Null; objects with more pairs are greater, then pairs
// compared in storage order; arrays with more elements are greater, then element by element; strings bytewise
// (the databases run with the C.UTF-8 collation), numbers by value, false < true.
import { JsonNumber, type JsonValue } from './lossless-json.js';
import { sortedJsonbEntries } from './jsonb-text.js';

function typeRank(v: JsonValue): number {
  if (v === null) return 0;
  if (typeof v === 'string') return 1;
  if (v instanceof JsonNumber) return 2;
  if (typeof v === 'boolean') return 3;
  if (Array.isArray(v)) return 4;
  return 5;
}

function decimal(text: string): { m: bigint; s: number } {
  const x = /^([-+]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?$/.exec(text)!;
  let s = (x[3] ?? '').length - Number(x[4] ?? 0);
  let m = BigInt(`${x[2] ?? ''}${x[3] ?? ''}` || '0') * (x[1] === '-' ? -1n : 1n);
  if (s < 0) {
    m *= 10n ** BigInt(-s);
    s = 0;
  }
  return { m, s };
}

export function compareNumericText(a: string, b: string): number {
  const x = decimal(a);
  const y = decimal(b);
  const s = Math.max(x.s, y.s);
  const l = x.m * 10n ** BigInt(s - x.s);
  const r = y.m * 10n ** BigInt(s - y.s);
  return l < r ? -1 : l > r ? 1 : 0;
}

function compareStrings(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function compareJsonb(a: JsonValue, b: JsonValue, topLevel = true): number {
  // At the top level a scalar is a one-element "raw scalar" array: against a real array the element count decides
  // first (so an empty array is below every scalar, two or more elements above), and at one element the scalar is
  // the smaller.
  if (topLevel && Array.isArray(a) !== Array.isArray(b)) {
    const [array, scalarFirst] = Array.isArray(a) ? [a, false] : [b as JsonValue[], true];
    const other = Array.isArray(a) ? b : a;
    if (!(other instanceof Map)) {
      const arrayVsScalar = array.length === 1 ? 1 : array.length === 0 ? -1 : 1;
      return scalarFirst ? -arrayVsScalar : arrayVsScalar;
    }
  }
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (a === null) return 0;
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (a instanceof JsonNumber) return compareNumericText(a.text, (b as JsonNumber).text);
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a)) {
    const bb = b as JsonValue[];
    if (a.length !== bb.length) return a.length > bb.length ? 1 : -1;
    for (let i = 0; i < a.length; i++) {
      const c = compareJsonb(a[i]!, bb[i]!, false);
      if (c !== 0) return c;
    }
    return 0;
  }
  const ea = sortedJsonbEntries(a);
  const eb = sortedJsonbEntries(b as Map<string, JsonValue>);
  if (ea.length !== eb.length) return ea.length > eb.length ? 1 : -1;
  for (let i = 0; i < ea.length; i++) {
    const k = compareStrings(ea[i]![0], eb[i]![0]);
    if (k !== 0) return k;
    const c = compareJsonb(ea[i]![1], eb[i]![1], false);
    if (c !== 0) return c;
  }
  return 0;
}
