import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LINE_REPAIRS, repairEventLine, type LineRepair } from '../src/event-line-repair.js';

interface Vector {
  readonly name: string;
  readonly input_base64: string;
  readonly expected_base64: string;
  readonly repairs: readonly LineRepair[];
}

const VECTORS_PATH = fileURLToPath(new URL('../../../fixtures/line-repairs.json', import.meta.url));
const vectors = JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as Vector[];
const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
const repairText = (text: string): { text: string; repairs: readonly LineRepair[] } => repairEventLine(utf8(text));
const decodeKeepingBom = new TextDecoder('utf-8', { ignoreBOM: true });

describe('fixtures/line-repairs.json (shared with the Lua filter)', () => {
  it('covers every rule', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(60);
    const kinds = new Set(vectors.flatMap((v) => v.repairs));
    expect([...kinds].sort()).toEqual([...LINE_REPAIRS].sort());
    expect(Math.max(...vectors.map((v) => Buffer.from(v.input_base64, 'base64').length))).toBeGreaterThanOrEqual(2 * 1024 * 1024);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const result = repairEventLine(Buffer.from(v.input_base64, 'base64'));
    const expected = Buffer.from(v.expected_base64, 'base64');
    const out = utf8(result.text);
    // Comparing Buffers first keeps a 2 MB mismatch from printing the whole line.
    expect(out.equals(expected) ? 'same bytes' : `differs (got ${out.length} bytes, want ${expected.length})`).toBe('same bytes');
    expect(result.repairs).toEqual(v.repairs);
  });
});

describe('repairEventLine', () => {
  it('returns the decoded line itself when nothing needs repair', () => {
    const line = '{"eventType":"io.serverlessworkflow.task.started.v1","n":12345678901234567890,"d":1.778577243512337E9,"s":"\\u00e9\\ud83d\\ude00"}';
    expect(repairText(line)).toEqual({ text: line, repairs: [] });
  });

  it('spells the examples of the rule exactly', () => {
    expect(repairText('{"a":1e999,"b":-2e308,"c":1e-400}')).toEqual({ text: '{"a":"1e999","b":"-2e308","c":"1e-400"}', repairs: ['number-overflow'] });
    expect(repairText('{"k\\u0000":"\\ud800"}')).toEqual({ text: '{"k\\ufffd":"\\ufffd"}', repairs: ['nul-escape', 'lone-surrogate'] });
    expect(repairEventLine(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]))).toEqual({
      text: '{"a":"\uFFFD\uFFFD\uFFFD"}',
      repairs: ['invalid-utf8'],
    });
  });

  it('keeps exactly 1000 levels and turns the 1001st into the string of its text', () => {
    const deep = (levels: number): string => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    expect(repairText(deep(1000)).repairs).toEqual([]);
    const repaired = repairText(deep(1001));
    expect(repaired).toEqual({ text: `{"a":${'['.repeat(999)}"[]"${']'.repeat(999)}}`, repairs: ['nesting-depth'] });
    let value: unknown = JSON.parse(repaired.text);
    let levels = 0;
    while (typeof value === 'object' && value !== null) {
      levels++;
      value = Array.isArray(value) ? value[0] : (value as Record<string, unknown>)['a'];
    }
    expect([levels, value]).toEqual([1000, '[]']);
  });

  it('R1 is WHATWG decoding for any bytes (BOM kept), and reported exactly when the bytes are not UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const result = repairEventLine(bytes);
        const decoded = decodeKeepingBom.decode(bytes);
        if (!decoded.trimStart().startsWith('{')) expect(result.text).toBe(decoded);
        expect(result.repairs.includes('invalid-utf8')).toBe(!Buffer.from(bytes).equals(utf8(decoded)));
      }),
      { numRuns: 2000 },
    );
  });
});

// ---- generated lines: random JSON objects with defects injected at random places ----

/** A generated JSON fragment: its raw bytes, and the value a JSON parser must read from the repaired line. */
interface Fragment {
  readonly bytes: Buffer;
  /** `level` is the nesting level a container would open at (the top-level object is 1). */
  readonly value: (level: number) => unknown;
  readonly repairs: (level: number) => readonly LineRepair[];
}

const leaf = (bytes: Buffer | string, value: unknown, repairs: readonly LineRepair[] = []): Fragment => ({
  bytes: typeof bytes === 'string' ? utf8(bytes) : bytes,
  value: () => value,
  repairs: () => repairs,
});

// Well-formed text without U+0000: JSON.stringify of it is a line with nothing to repair.
const cleanString = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !s.includes('\u0000'));
const INVALID_UTF8: readonly number[][] = [[0xff], [0xc0, 0xaf], [0xe2, 0x82], [0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf0, 0x9f, 0x98]];
const LONE = ['\\ud800', '\\uDBFF', '\\udc00', '\\uDFFF', '\\uD83D\\u0041', '\\udc00\\ud800'];
const OUT_OF_RANGE = ['1e999', '-2e308', '1e-400', '-1.5E+400', '2.5e-999', '1E+999', `${'9'.repeat(320)}`, `0.${'0'.repeat(330)}7`];

const stringFragment: fc.Arbitrary<Fragment> = fc.oneof(
  { weight: 6, arbitrary: cleanString.map((s) => leaf(JSON.stringify(s), s)) },
  {
    weight: 1,
    arbitrary: fc.tuple(cleanString, cleanString).map(([a, b]) =>
      leaf(`${JSON.stringify(a).slice(0, -1)}\\u0000${JSON.stringify(b).slice(1)}`, `${a}\uFFFD${b}`, ['nul-escape']),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(cleanString, fc.constantFrom(...LONE)).map(([a, lone]) => {
      const replaced = lone.replace(/\\u[dD][89a-fA-F]\w\w/g, '\uFFFD').replace('\\u0041', 'A');
      return leaf(`${JSON.stringify(a).slice(0, -1)}${lone}"`, `${a}${replaced}`, ['lone-surrogate']);
    }),
  },
  { weight: 1, arbitrary: fc.constant(leaf('"\\uD83D\\ude00 \\\\u0000"', '\u{1F600} \\u0000')) },
  {
    weight: 1,
    arbitrary: fc.tuple(cleanString, fc.constantFrom(...INVALID_UTF8)).map(([a, bad]) => {
      const bytes = Buffer.concat([utf8(JSON.stringify(a).slice(0, -1)), Buffer.from(bad), utf8('"')]);
      return leaf(bytes, `${a}${new TextDecoder().decode(Buffer.from(bad))}`, ['invalid-utf8']);
    }),
  },
);

const numberFragment: fc.Arbitrary<Fragment> = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => leaf(JSON.stringify(d), JSON.parse(JSON.stringify(d)) as number)),
  fc.constantFrom('12345678901234567890', '0.30000000000000004', '1.7976931348623157e308', '5e-324', '-0.0', '1.778577243512337E9').map((t) => leaf(t, Number(t))),
  fc.constantFrom(...OUT_OF_RANGE).map((t) => leaf(t, t, ['number-overflow'])),
  // R7: the same number, with a sign in its exponent (Fluent Bit 4.0.13 read `5e3` as 5).
  fc.constantFrom('5e3', '-2E1', '0e999', '1e00000000000000000000001').map((t) => leaf(t, Number(t), ['exponent-sign'])),
  // R6: what Fluent Bit 4.0.13 reads as a number but JSON does not (±inf, or a silently altered value).
  fc.constantFrom('1.e999', '-.5e999', '1E999.', '1.0.0', '01', '-', '1x', '2026-05-12', '-0x1.p9').map((t) => leaf(t, t, ['number-token'])),
);

// Nested arrays `k` levels deep: whatever level they open at, levels beyond 1000 must come back as one string.
const deepFragment: fc.Arbitrary<Fragment> = fc.integer({ min: 990, max: 1400 }).map((k) => ({
  bytes: utf8(`${'['.repeat(k)}${']'.repeat(k)}`),
  value: (level: number) => {
    const arrays = Math.min(k, 1001 - level);
    const rest = k - arrays;
    let value: unknown = rest > 0 ? `${'['.repeat(rest)}${']'.repeat(rest)}` : [];
    for (let i = 1; i < arrays; i++) value = [value];
    if (rest > 0 && arrays > 0) value = [value];
    return value;
  },
  repairs: (level: number) => (level + k - 1 > 1000 ? ['nesting-depth'] : []),
}));

const { fragment } = fc.letrec<{ fragment: Fragment; object: Fragment; array: Fragment }>((tie) => ({
  fragment: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: stringFragment },
    { weight: 3, arbitrary: numberFragment },
    { weight: 1, arbitrary: fc.constantFrom(leaf('true', true), leaf('false', false), leaf('null', null)) },
    { weight: 2, arbitrary: tie('object') },
    { weight: 2, arbitrary: tie('array') },
    { weight: 1, arbitrary: deepFragment },
  ),
  object: fc.array(fc.tuple(stringFragment, tie('fragment'), fc.constantFrom('', ' ', '\t')), { maxLength: 5 }).map((entries) => ({
    bytes: Buffer.concat([utf8('{'), ...entries.flatMap(([k, v, ws], i) => [utf8(i > 0 ? ',' : ''), k.bytes, utf8(`${ws}:${ws}`), v.bytes]), utf8('}')]),
    value: (level: number) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of entries) Object.defineProperty(o, k.value(0) as string, { value: v.value(level + 1), enumerable: true, writable: true, configurable: true });
      return o;
    },
    repairs: (level: number) => entries.flatMap(([k, v]) => [...k.repairs(0), ...v.repairs(level + 1)]),
  })),
  array: fc.array(tie('fragment'), { maxLength: 5 }).map((items) => ({
    bytes: Buffer.concat([utf8('['), ...items.flatMap((v, i) => [utf8(i > 0 ? ', ' : ''), v.bytes]), utf8(']')]),
    value: (level: number) => items.map((v) => v.value(level + 1)),
    repairs: (level: number) => items.flatMap((v) => v.repairs(level + 1)),
  })),
}));

/** A line: an object whose values are generated fragments (defects anywhere), with optional surrounding whitespace. */
const hostileLine = fc
  .tuple(fc.array(fc.tuple(stringFragment, fragment), { maxLength: 6 }), fc.constantFrom('', ' ', '\t '))
  .map(([entries, ws]) => {
    const bytes = Buffer.concat([utf8(`${ws}{`), ...entries.flatMap(([k, v], i) => [utf8(i > 0 ? ',' : ''), k.bytes, utf8(':'), v.bytes]), utf8(`}${ws.trim()}`)]);
    const expected = (): unknown => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of entries) Object.defineProperty(o, k.value(0) as string, { value: v.value(2), enumerable: true, writable: true, configurable: true });
      return o;
    };
    const repairs = new Set(entries.flatMap(([k, v]) => [...k.repairs(0), ...v.repairs(2)]));
    return { bytes, expected, repairs: LINE_REPAIRS.filter((r) => repairs.has(r)) };
  });

describe('repairEventLine on generated lines with injected defects', () => {
  it('the repaired line always parses, and parses to the value the rules define', () => {
    fc.assert(
      fc.property(hostileLine, ({ bytes, expected }) => {
        const { text } = repairEventLine(bytes);
        expect(JSON.parse(text)).toEqual(expected());
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent: a repaired line needs no further repair', () => {
    fc.assert(
      fc.property(fc.oneof(hostileLine.map((l) => l.bytes), fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b))), (bytes) => {
        const once = repairEventLine(bytes);
        const twice = repairEventLine(utf8(once.text));
        expect(twice).toEqual({ text: once.text, repairs: [] });
        // The output is well-formed UTF-16, so it survives UTF-8 encoding unchanged.
        expect(utf8(once.text).toString('utf8')).toBe(once.text);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves every line without a defect byte for byte as it is', () => {
    const cleanJson: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        cleanString,
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(cleanString, tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    fc.assert(
      fc.property(fc.dictionary(cleanString, cleanJson, { maxKeys: 6 }), fc.constantFrom(0, 2), (value, indent) => {
        // Pretty-printed lines never reach a writer, but prove whitespace is kept; `\n` is JSON whitespace too.
        const line = JSON.stringify(value, null, indent);
        expect(repairText(line)).toEqual({ text: line, repairs: [] });
      }),
      { numRuns: 500 },
    );
  });

  it('reports exactly the kinds it repaired, once each, in rule order', () => {
    fc.assert(
      fc.property(hostileLine, ({ bytes, repairs }) => {
        expect(repairEventLine(bytes).repairs).toEqual(repairs);
      }),
      { numRuns: 200 },
    );
  });
});
