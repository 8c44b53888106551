// fluent-bit/opensearch/opensearch-document.lua executed for real under luajit (the LuaJIT Fluent Bit embeds), fed
// record["log"] as Fluent Bit hands it to the filter, held to the expected bytes for each rule and, for generated
// lines, to its TypeScript twin (fluent-bit/model/opensearch-document.ts, which the pipeline model runs).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLUENT_BIT_ROOT } from '../model/load-config.js';
import { luajitAvailable, luaLogFilter, UNCHANGED_REST } from './support/lua-log-filter.js';
import { opensearchDocumentLine } from '../model/opensearch-document.js';

const SCRIPT = join(FLUENT_BIT_ROOT, 'opensearch', 'opensearch-document.lua');
const available = luajitAvailable('opensearch-document.lua');
const runLua = luaLogFilter(SCRIPT, 'opensearch_document');

const E = '"eventType":"io.serverlessworkflow.workflow.started.v1"';

// D3: names over 50,000 bytes once decoded (the node's limit, in UTF-8 bytes).
const LIMIT = 'n'.repeat(50_000);
const OVER = 'n'.repeat(50_001);
const OVER_2BYTE = 'é'.repeat(25_001); // 50,002 bytes in 25,001 characters
const quoted = (text: string): string => JSON.stringify(text);

/** [line, expected line after the rule] */
const CASES: readonly [string, string, string][] = [
  ['an ordinary event: unchanged', `{${E},"instanceId":"A","input":{"a.b":1,"_id":2}}`, `{${E},"instanceId":"A","input":{"a.b":1,"_id":2}}`],
  ['a top-level repeated name: the last one stays', `{${E},"status":"A","n":1,"status":"B"}`, `{${E},"n":1,"status":"B"}`],
  ['a repeated name in a payload, spelled with an escape', `{${E},"input":{"a":1, "\\u0061" : 2 ,"b":3}}`, `{${E},"input":{"\\u0061" : 2 ,"b":3}}`],
  ['three of a name in an array element', `{${E},"l":[{"x":1,"x":2,"x":3}]}`, `{${E},"l":[{"x":3}]}`],
  ['metadata names at the top level are renamed', `{${E},"_id":"i","_routing":"r","_source":1,"\\u005fversion":3}`, `{${E},"wi_event__id":"i","wi_event__routing":"r","wi_event__source":1,"wi_event_\\u005fversion":3}`],
  ['@timestamp, wi and kubernetes are renamed', `{"@timestamp":"t",${E},"wi":{"x":1},"kubernetes":{}}`, `{"wi_event_@timestamp":"t",${E},"wi_event_wi":{"x":1},"wi_event_kubernetes":{}}`],
  ['names with an empty dot segment, and the empty name', `{${E},".a":1,"a..b":2,".":3,"":4,"a.":5,"a.b":6}`, `{${E},"wi_event__a":1,"wi_event_a__b":2,"wi_event__":3,"wi_event_":4,"a.":5,"a.b":6}`],
  ['a renamed member meeting its new name: the last stays', `{${E},"wi_event__id":1,"_id":2}`, `{${E},"wi_event__id":2}`],
  ['a repeated member inside a removed one goes with it', `{${E},"o":{"k":1,"k":2},"o":3}`, `{${E},"o":3}`],
  ['not one JSON object: unchanged', `{${E},"_id":1`, `{${E},"_id":1`],
  ['text after the object: unchanged', `{${E},"_id":1} x`, `{${E},"_id":1} x`],
  ['an array line: unchanged', '[{"_id":1,"_id":2}]', '[{"_id":1,"_id":2}]'],
  ['a name of exactly 50,000 bytes: unchanged', `{${E},"${LIMIT}":1,"i":{"${LIMIT}":2}}`, `{${E},"${LIMIT}":1,"i":{"${LIMIT}":2}}`],
  ['a top-level name over 50,000 bytes: the member kept as text', `{${E},"${OVER}" : {"a":[1,"}"]} ,"b":2}`, `{${E},"wi_event_long_name":${quoted(`"${OVER}" : {"a":[1,"}"]}`)} ,"b":2}`],
  ['nested, counted in UTF-8 bytes, spelled with escapes, several in one object', `{${E},"input":{"${OVER_2BYTE}":"v\n","${'\u006e'.repeat(50_001)}":null}}`,
    `{${E},"input":{"wi_event_long_name":${quoted(`"${OVER_2BYTE}":"v\n"`)},"wi_event_long_name_2":${quoted(`"${'\u006e'.repeat(50_001)}":null`)}}}`],
  ['a too long name starting with _ at the top level: the long-name rule, not the rename', `{${E},"_${OVER}":1}`, `{${E},"wi_event_long_name":${quoted(`"_${OVER}":1`)}}`],
  ['a too long name repeated: the last one stays', `{${E},"${OVER}":1,"${OVER}":2}`, `{${E},"wi_event_long_name":${quoted(`"${OVER}":1`)},"wi_event_long_name_2":${quoted(`"${OVER}":2`)}}`],
  ['a long-name member meeting its new name: the last stays', `{${E},"${OVER}":1,"wi_event_long_name":2}`, `{${E},"wi_event_long_name":2}`],
];

describe('the OpenSearch document rule (TypeScript twin)', () => {
  it.each(CASES)('%s', (_, line, expected) => {
    expect((opensearchDocumentLine(Buffer.from(line)) ?? Buffer.from(line)).toString()).toBe(expected);
    expect(opensearchDocumentLine(Buffer.from(line)) === undefined).toBe(line === expected);
  });

  it('leaves valid JSON valid, with no repeated names and no refused top-level name, and every kept value as it was', () => {
    const key = fc.oneof(fc.constantFrom('a', 'b', '_id', '_routing', '@timestamp', 'wi', 'kubernetes', '', '.', 'a..b', 'a.b', 'é', OVER, OVER_2BYTE), fc.string({ maxLength: 3 }));
    const members = fc.array(fc.tuple(key, fc.jsonValue({ maxDepth: 2 })), { maxLength: 8 });
    const longNames = (value: unknown): boolean =>
      Array.isArray(value) ? value.some(longNames) : value !== null && typeof value === 'object' ? Object.entries(value).some(([k, v]) => Buffer.byteLength(k) > 50_000 || longNames(v)) : false;
    fc.assert(fc.property(members, (entries) => {
      const line = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
      const out = (opensearchDocumentLine(Buffer.from(line)) ?? Buffer.from(line)).toString();
      const parsed = JSON.parse(out) as Record<string, unknown>;
      expect(longNames(parsed)).toBe(false);
      const names = [...out.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)].length;
      expect(names).toBeGreaterThanOrEqual(Object.keys(parsed).length);
      for (const name of Object.keys(parsed)) {
        expect(name.startsWith('_') || ['@timestamp', 'wi', 'kubernetes', ''].includes(name) || /^\.|\.\.[^.]/.test(name)).toBe(false);
      }
      // The last value of each ordinary name survives (what PostgreSQL's jsonb keeps).
      const last = new Map(entries.map(([k, v]) => [k, v]));
      for (const [k, v] of last) if (/^[a-zé]/.test(k) && k !== 'wi' && k !== 'kubernetes' && !k.includes('..') && !k.startsWith('wi_event_') && Buffer.byteLength(k) <= 50_000) expect(JSON.stringify(parsed[k])).toBe(JSON.stringify(v)); // -0 prints as 0
      // A too long name's member is kept whole as text (unless a later member of the new name replaced it).
      const kept = Object.entries(parsed).filter(([k]) => k.startsWith('wi_event_long_name')).map(([, v]) => JSON.parse(`{${v as string}}`) as Record<string, unknown>);
      for (const member of kept) expect(Object.keys(member).every((k) => Buffer.byteLength(k) > 50_000)).toBe(true);
    }), { numRuns: 300 });
  });
});

describe.skipIf(!available)('opensearch-document.lua under luajit', () => {
  it('gives the expected bytes for every case, with code 0 exactly when nothing changed', () => {
    const results = runLua(CASES.map(([, line]) => Buffer.from(line)));
    expect(results.map((r) => [r.log.toString(), r.code, r.rest])).toEqual(CASES.map(([, line, expected]) => [expected, line === expected ? 0 : 2, UNCHANGED_REST]));
  });

  it('leaves a record without a log field, or with a non-string log, untouched', () => {
    const result = spawnSync('luajit', ['-e', `dofile(${JSON.stringify(SCRIPT)})
      local c1, t1, r1 = opensearch_document("t", 2, { message = "x" })
      local c2, t2, r2 = opensearch_document("t", 3, { log = 42 })
      print(c1, t1, r1.message, c2, t2, r2.log)`], { encoding: 'utf8' });
    expect([result.stderr, result.stdout]).toEqual(['', '0\t2\tx\t0\t3\t42\n']);
  });

  // Fragments glued without regard for JSON structure, so both implementations must agree on broken input too.
  const fragment = fc.oneof(
    fc.constantFrom('"', '\\', '\\"', '\\\\', '{', '}', '[', ']', ':', ',', ' ', '"_id":', '"a":', '"a" :', '"\\u0061":', '"@timestamp":', '"wi":',
      '"kubernetes":', '"":', '".":', '"a..b":', '"a.":', '"\\u005f":', '"\\ud800":', '"\\uD83D\\uDE00":', '"\\u12G4":', '"\\u00":', '1', 'null', '"x"', 'é', '📦',
      `"${LIMIT}":`, `"${OVER}":`, `"${OVER}"`, '"wi_event_long_name":', '\n')
      .map((t) => Buffer.from(t, 'utf8')),
    fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)),
  );
  const brokenLine = fc.tuple(fc.constantFrom('', ' ', 'x'), fc.array(fragment, { maxLength: 30 }), fc.boolean())
    .map(([lead, parts, close]) => Buffer.concat([Buffer.from(`${lead}{`), ...parts, Buffer.from(close ? '}' : '')]));
  const key = fc.oneof(fc.constantFrom('a', '_id', '_x', '@timestamp', 'wi', 'kubernetes', '', '.', '.a', 'a..b', 'a.', 'wi_event__id'), fc.string({ maxLength: 3 }));
  const jsonLine = fc.array(fc.tuple(key, fc.jsonValue({ maxDepth: 3 })), { maxLength: 8 }).chain((entries) =>
    fc.boolean().map((escape) => Buffer.from(`{${entries.map(([k, v]) => `${escape ? JSON.stringify(k).replace(/a/g, '\\u0061') : JSON.stringify(k)}:${JSON.stringify(v)}`).join(' , ')}}`, 'utf8')));

  it('agrees with the TypeScript twin byte for byte on generated lines', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(brokenLine, jsonLine), { minLength: 1, maxLength: 40 }), (lines) => {
        const results = runLua(lines);
        lines.forEach((line, i) => {
          const ts = opensearchDocumentLine(line);
          expect({ line: line.toString('base64'), lua: results[i]!.log.toString('base64'), code: results[i]!.code }).toEqual({
            line: line.toString('base64'), lua: (ts ?? line).toString('base64'), code: ts ? 2 : 0,
          });
        });
      }),
      { numRuns: 150 },
    );
  });
});
