// The fault of a text that is not one JSON value has one definition in two languages: json-text-fault.ts (the
// OpenSearch normalizer, init-job ingest) and normalizer/042-json-text-fault.sql (PostgreSQL's normalizer). Each
// example is checked on both, then fast-check holds them to the same answer for texts built from JSON and the
// faults producers print (bare NaN/inf, raw control characters, bad escapes, cut texts, deep nesting).
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import { jsonTextProblem, readJsonText } from '@workflow-index/events';
import type { TestDatabase } from './support/test-database.js';

const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;

/** [text, the reason an ingest error gives for a record that is this text (undefined: a JSON object)] */
const EXAMPLES: readonly [string, string | undefined][] = [
  ['{"x": NaN}', 'event is not valid JSON: invalid token "NaN" at character 7'],
  ['{"x":inf}', 'event is not valid JSON: invalid token "inf" at character 6'],
  ['{"x":-Infinity}', 'event is not valid JSON: invalid token "-Infinity" at character 6'],
  ['{"x":"a\u0001b"}', 'event is not valid JSON: control character U+0001 in a string at character 8'],
  ['{"x":"a\tb"}', 'event is not valid JSON: control character U+0009 in a string at character 8'],
  ['{"x":"a\nb"}', 'event is not valid JSON: control character U+000A in a string at character 8'],
  ['{"a":1}\u0002', 'event is not valid JSON: control character U+0002 outside a string at character 8'],
  ['{"x":"\\q"}', 'event is not valid JSON: invalid escape \\q in a string at character 7'],
  ['{"x":"\\u12"}', 'event is not valid JSON: invalid escape \\u12 in a string at character 7'],
  ['{"x":"\\\t"}', 'event is not valid JSON: control character U+0009 in a string at character 8'],
  ['{"x":"ab', 'event is not valid JSON: ends before the JSON text is complete'],
  ['{"x":"ab\\', 'event is not valid JSON: ends before the JSON text is complete'],
  ['{"x":"\\u12', 'event is not valid JSON: ends before the JSON text is complete'],
  ['{"x":[1,2', 'event is not valid JSON: ends before the JSON text is complete'],
  ['{"x":', 'event is not valid JSON: ends before the JSON text is complete'],
  ['', 'event is not valid JSON: ends before the JSON text is complete'],
  [' \n', 'event is not valid JSON: ends before the JSON text is complete'],
  ['order 42 failed', 'event is not valid JSON: invalid token "order" at character 1'],
  ['2026-05-12 09:14:03 INFO {"eventType":"x"}', 'event is not valid JSON: invalid token "2026-05-12" at character 1'],
  [`{"x":${'y'.repeat(50)}}`, `event is not valid JSON: invalid token "${'y'.repeat(40)}…" at character 6`],
  ['{"x" 1}', 'event is not valid JSON: expected ":" but found "1" at character 6'],
  ['{"x":1,}', 'event is not valid JSON: expected a member name but found "}" at character 8'],
  ['{,}', 'event is not valid JSON: expected a member name or "}" but found "," at character 2'],
  ['{"a":}', 'event is not valid JSON: expected a value but found "}" at character 6'],
  ['[,]', 'event is not valid JSON: expected a value or "]" but found "," at character 2'],
  ['{"a":1]', 'event is not valid JSON: expected "," or "}" but found "]" at character 7'],
  ['[1 2]', 'event is not valid JSON: expected "," or "]" but found "2" at character 4'],
  ['{"a":"b" "c"}', 'event is not valid JSON: expected "," or "}" but found a string at character 10'],
  ['{"a":1} {"b":2}', 'event is not valid JSON: expected the end of the text but found "{" at character 9'],
  // the line-repair rule's R5: the first bracket that opens level 1001
  [`{"a":${deep(999)}}`, undefined],
  [`{"a":${deep(1000)}}`, 'event is not valid JSON: nested deeper than 1000 levels at character 1005'],
  [`{"a":${'['.repeat(20_000)}`, 'event is not valid JSON: nested deeper than 1000 levels at character 1005'],
  // positions count characters, not UTF-16 units or bytes
  ['{"😀é":NaN}', 'event is not valid JSON: invalid token "NaN" at character 7'],
  ['{"a":[true,null,"s",-0.5e+3,{}]}', undefined],
  ['[1,2]', 'event is not a JSON object (got array)'],
  ['"a string"', 'event is not a JSON object (got string)'],
  [' 12 ', 'event is not a JSON object (got number)'],
  ['false', 'event is not a JSON object (got boolean)'],
  ['null', 'event is not a JSON object (got null)'],
];

describe('json-text-fault.ts', () => {
  it.each(EXAMPLES)('%j', (text, reason) => {
    expect(jsonTextProblem(text)).toBe(reason);
  });

  it('agrees with JSON.parse on what is valid, up to 1000 levels (fast-check)', () => {
    fc.assert(fc.property(fc.json({ depthSize: 'medium' }), fc.string({ unit: 'binary', maxLength: 4 }), fc.nat(), (json, noise, at) => {
      for (const text of [json, json.slice(0, at % (json.length + 1)) + noise + json.slice(at % (json.length + 1))]) {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        expect(readJsonText(text).valid).toBe(parses);
      }
    }), { numRuns: 2000 });
  });
});

describePostgres('042-json-text-fault.sql = json-text-fault.ts (real PostgreSQL)', () => {
  let db: TestDatabase;
  it.beforeAll(async ({ database }) => {
    db = database;
  });

  const sqlProblems = async (texts: readonly string[]): Promise<(string | null)[]> => {
    const r = await db.pool.query<{ p: string | null }>('SELECT workflow_index.json_text_problem(t) AS p FROM unnest($1::text[]) WITH ORDINALITY AS u(t, o) ORDER BY o', [texts]);
    return r.rows.map((row) => row.p);
  };

  it('gives every example its reason', async () => {
    expect(await sqlProblems(EXAMPLES.map(([text]) => text))).toEqual(EXAMPLES.map(([, reason]) => reason ?? null));
  });

  it('gives the same reason as json-text-fault.ts for any text built from JSON and hostile pieces (fast-check)', async () => {
    // PostgreSQL's text cannot hold U+0000; every writer repairs it to U+FFFD before a parser sees it.
    const piece = fc.constantFrom('{', '}', '[', ']', ':', ',', '"', '\\', '\\u', '\\u00', '\\n', 'NaN', 'inf', '-Infinity', 'true', 'nul', '-', '0', '01',
      '1.5e+3', '.5', ' ', '\t', '\n', '\u0001', '\u001f', 'é', '😀', '\ufffd', 'a', '"k":', '"v"', deep(3), '[[[[', '}}}}');
    const text = fc.oneof(
      fc.array(piece, { maxLength: 30 }).map((p) => p.join('')),
      fc.tuple(fc.json({ depthSize: 'medium' }), fc.array(piece, { maxLength: 3 }), fc.nat(), fc.nat()).map(([json, p, at, cut]) => {
        const i = at % (json.length + 1);
        const mutated = json.slice(0, i) + p.join('') + json.slice(i);
        return mutated.slice(0, mutated.length - (cut % 3 === 0 ? cut % (mutated.length + 1) : 0));
      }),
      fc.tuple(fc.integer({ min: 995, max: 1005 }), fc.constantFrom('[', '{"a":'), fc.array(piece, { maxLength: 3 })).map(([n, open, p]) => open.repeat(n) + p.join('')),
    ).map((t) => t.replaceAll('\u0000', '\ufffd'));
    const samples = fc.sample(text, { numRuns: 3000, seed: 20260512 });
    const expected = samples.map((t) => jsonTextProblem(t) ?? null);
    const actual = await sqlProblems(samples);
    const differ = samples.map((t, i) => [t, expected[i], actual[i]]).filter(([, e, a]) => e !== a);
    expect(differ).toEqual([]);
  });

  it('looks for the fault up to 262,144 characters (Buffer_Max_Size), in characters, not UTF-16 units; not in a longer text', async () => {
    const faulty = (characters: number, pad: string) => {
      const head = `{"eventType":"x","blob":"`;
      const tail = '","n":[1,NaN]}';
      return `${head}${pad.repeat(characters - head.length - tail.length)}${tail}`;
    };
    const notExamined = 'event is not a readable JSON object: longer than 262144 characters, not examined further';
    for (const pad of ['z', '😀']) {
      const atBound = faulty(262_144, pad);
      const at = [...atBound].indexOf('N') + 1;
      expect(await sqlProblems([atBound])).toEqual([`event is not valid JSON: invalid token "NaN" at character ${at}`]);
      expect(jsonTextProblem(atBound)).toBe(`event is not valid JSON: invalid token "NaN" at character ${at}`);
      const over = faulty(262_145, pad);
      expect(await sqlProblems([over])).toEqual([notExamined]);
      expect(jsonTextProblem(over)).toBe(notExamined);
    }
  });
});
