// fluent-bit/postgresql/repair-line.lua executed for real under luajit (the LuaJIT that Fluent Bit embeds), fed
// exactly the bytes Fluent Bit hands the filter: record["log"] as the tail input joined the line. Held to the
// shared vectors and, for generated hostile lines, to the TypeScript rule byte for byte.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repairEventLine } from '@workflow-index/events';
import { FLUENT_BIT_ROOT } from '../model/load-config.js';
import { luajitAvailable, luaLogFilter, UNCHANGED_REST } from './support/lua-log-filter.js';

const SCRIPT = join(FLUENT_BIT_ROOT, 'postgresql', 'repair-line.lua');
const VECTORS = join(FLUENT_BIT_ROOT, '..', 'fixtures', 'line-repairs.json');
const available = luajitAvailable('repair-line.lua');
const runLua = luaLogFilter(SCRIPT, 'repair_log');


interface Vector {
  readonly name: string;
  readonly input_base64: string;
  readonly expected_base64: string;
}

describe.skipIf(!available)('repair-line.lua under luajit', () => {
  const vectors = JSON.parse(readFileSync(VECTORS, 'utf8')) as Vector[];

  it('gives exactly the expected bytes for every shared vector, with code 0 exactly when nothing changed', () => {
    const inputs = vectors.map((v) => Buffer.from(v.input_base64, 'base64'));
    const results = runLua(inputs);
    const mismatches = vectors.flatMap((v, i) => {
      const expected = Buffer.from(v.expected_base64, 'base64');
      const r = results[i]!;
      const code = expected.equals(inputs[i]!) ? 0 : 2;
      return r.log.equals(expected) && r.code === code && r.rest === UNCHANGED_REST ? [] : [`${v.name}: code ${r.code}, ${r.log.length} bytes`];
    });
    expect(mismatches).toEqual([]);
    expect(results.filter((r) => r.code === 2).length).toBe(vectors.filter((v) => v.input_base64 !== v.expected_base64).length);
  });

  it('leaves a record without a log field, or with a non-string log, untouched', () => {
    const result = spawnSync('luajit', ['-e', `dofile(${JSON.stringify(SCRIPT)})
      local c1, t1, r1 = repair_log("t", 2, { message = "x" })
      local c2, t2, r2 = repair_log("t", 3, { log = 42 })
      print(c1, t1, r1.message, c2, t2, r2.log)`], { encoding: 'utf8' });
    expect([result.stderr, result.stdout]).toEqual(['', '0\t2\tx\t0\t3\t42\n']);
  });

  // Hostile lines built from fragments that hit every branch of the scanner, glued without regard for JSON
  // structure (unterminated strings, stray brackets, random bytes), so the two implementations must agree on
  // non-JSON input too.
  const fragment = fc.oneof(
    fc.constantFrom(
      '"', '\\', '\\"', '\\\\', '\\u0000', '\\u0000', '\\ud800', '\\uDBFF', '\\udc00', '\\uDFFF', '\\uD83D\\uDE00', '\\ud83d\\udc00',
      '\\uD800\\u0041', '\\u00', '\\u12G4', '{', '}', '[', ']', ':', ',', ' ', '\t', '"k":', '1e999', '-2e308', '1e-400', '1.5E+400',
      '2.4703282292062327e-324', '2.4703282292062328e-324', '1.7976931348623159e308', '1.7976931348623157e308', '.5e999', '+1e999',
      '01e999', '1e', '-', '0e999', '12345678901234567890', '0.30000000000000004', '9'.repeat(310), `0.${'0'.repeat(330)}1`,
      'true', 'false', 'null', 'é', '東', '📦', '\u007f', '\r',
      // R6/R7: runs as jsmn delimits them (printable ASCII up to whitespace , ] }), keys, unsigned exponents
      '1.e999', '-.5e999', '1E999.', '1.0.0', '01', '1x', '-0x1.p9', '5e3', '-2E1', '5.0e3', '1"', ' :', '1[', 'nope',
    ).map((t) => Buffer.from(t, 'utf8')),
    fc.constantFrom([0xff], [0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xf0, 0x9f, 0x98], [0xef, 0xbb, 0xbf], [0x00]).map((b) => Buffer.from(b)),
    fc.integer({ min: 990, max: 1010 }).map((k) => Buffer.from(`${'['.repeat(k)}${']'.repeat(k)}`)),
    fc.integer({ min: 995, max: 1005 }).map((k) => Buffer.from('{"a":'.repeat(k))),
    fc.integer({ min: 1, max: 1100 }).map((k) => Buffer.from(']'.repeat(k))),
    fc.double().map((d) => Buffer.from(String(d))),
    fc.string({ unit: 'binary', maxLength: 8 }).map((s) => Buffer.from(s, 'utf8')),
    fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b)),
  );
  const hostileLine = fc
    .tuple(fc.constantFrom('', ' ', '\t', 'x', '['), fc.array(fragment, { maxLength: 30 }), fc.boolean())
    .map(([lead, parts, close]) => Buffer.concat([Buffer.from(`${lead}{`), ...parts, Buffer.from(close ? '}' : '')]));

  // Well-formed event lines with defects in JSON positions, as a producer would print them.
  const eventLine = fc
    .tuple(
      fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom('\u0000', 'a\ud800b', '\udc00'))), { maxLength: 6 }),
      fc.constantFrom('1e999', '-1e-400', '7', '12345678901234567890', '5e3', '1.e999', '1.0.0', '-'),
    )
    .map(([entries, number]) => {
      const body = JSON.stringify(Object.fromEntries(entries)).slice(1);
      return Buffer.from(`{"eventType":"io.serverlessworkflow.task.started.v1","n":${number}${body === '}' ? '' : ','}${body}`, 'utf8');
    });

  it('agrees with the TypeScript rule byte for byte on generated hostile lines', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(hostileLine, eventLine), { minLength: 1, maxLength: 40 }), (lines) => {
        const results = runLua(lines);
        lines.forEach((line, i) => {
          const ts = Buffer.from(repairEventLine(line).text, 'utf8');
          const lua = results[i]!;
          expect({ line: line.toString('base64'), lua: lua.log.toString('base64'), code: lua.code }).toEqual({
            line: line.toString('base64'),
            lua: ts.toString('base64'),
            code: ts.equals(line) ? 0 : 2,
          });
        });
      }),
      { numRuns: 150 },
    );
  });
});
