// The normalizer's building blocks give exactly what PostgreSQL's own functions give, for generated inputs: the
// content hash, event times (doubles in every epoch unit, numeric strings, ISO strings), canonical numbers, jsonb
// text and jsonb order. Each property asks the real server for a whole batch in one query.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { TestDatabase } from '@workflow-index/postgresql/testing';
import { describePostgres, postgresTest } from './support/postgresql-fixtures.js';
import { canonicalNumber } from '@workflow-index/events';
import { doubleEpochMicros, eventTimeMicros, ImpossibleDateError } from '@workflow-index/events';
import { compareJsonb } from '@workflow-index/events';
import { jsonbText } from '@workflow-index/events';
import { parseLosslessJson } from '@workflow-index/events';
import { hashTextExtended } from '@workflow-index/events';
import { PATH_SEPARATOR, VALUE_SEPARATOR, jsonLeaves, leafEntries } from '@workflow-index/opensearch';
import { jsonPathEntries, sortableNumber } from '@workflow-index/opensearch';
import { jsonCandidates } from '@workflow-index/postgresql';

const it = postgresTest();
const RUNS = { numRuns: 25 };
// PostgreSQL text cannot hold NUL or a lone surrogate (the line-repair rule turns them into U+FFFD first).
// eslint-disable-next-line no-control-regex -- NUL is what PostgreSQL text cannot hold
const pgText = fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replace(/\u0000|[\ud800-\udfff]/g, '\ufffd'));

describePostgres('normalizer primitives = PostgreSQL functions', () => {
  let db: TestDatabase;
  it.beforeAll(async ({ database }) => {
    db = database;
  });

  it('hashtextextended', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pgText, { minLength: 1, maxLength: 40 }), async (texts) => {
        const { rows } = await db.pool.query<{ h: string }>('SELECT hashtextextended(t, 0)::text AS h FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n', [texts]);
        expect(texts.map((t) => hashTextExtended(t).toString())).toEqual(rows.map((r) => r.h));
      }),
      RUNS,
    );
  });

  it('double event times in seconds, milliseconds, microseconds and nanoseconds', async () => {
    const seconds = fc.double({ min: 1e9, max: 2.5e9, noNaN: true });
    const times = fc.oneof(
      seconds,
      seconds.map((s) => Math.round(s * 1e6) / 1e6),
      seconds.map((s) => s * 1e3),
      seconds.map((s) => Math.round(s * 1e3)),
      seconds.map((s) => Math.round(s * 1e6)),
      seconds.map((s) => s * 1e9),
      fc.double({ min: -1e12, max: 1e12, noNaN: true }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(times, { minLength: 1, maxLength: 60 }), async (values) => {
        const { rows } = await db.pool.query<{ us: string | null }>(
          `SELECT (extract(epoch FROM workflow_index.double_epoch_to_time(d)) * 1000000)::NUMERIC(20, 0)::text AS us
           FROM unnest($1::float8[]) WITH ORDINALITY AS u(d, n) ORDER BY n`,
          [values],
        );
        expect(values.map((v) => doubleEpochMicros(v)?.toString() ?? null)).toEqual(rows.map((r) => r.us));
      }),
      RUNS,
    );
  });

  it('string event times: numeric strings and ISO-8601 with offsets', async () => {
    const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });
    const iso = fc
      .record({
        y: fc.integer({ min: 1971, max: 2099 }), mo: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 31 }),
        h: fc.integer({ min: 0, max: 23 }), mi: fc.integer({ min: 0, max: 59 }), s: fc.option(fc.integer({ min: 0, max: 59 })),
        frac: fc.option(fc.integer({ min: 1, max: 12 }).chain(digits)), sep: fc.constantFrom('T', ' ', 't'),
        off: fc.constantFrom('Z', 'z', '+02:00', '-0530', '+01', '-11:45'),
      })
      .map(({ y, mo, d, h, mi, s, frac, sep, off }) => {
        const p = (n: number) => String(n).padStart(2, '0');
        const sec = s === null ? '' : `:${p(s)}${frac === null ? '' : `.${frac}`}`;
        return `${y}-${p(mo)}-${p(d)}${sep}${p(h)}:${p(mi)}${sec}${off}`;
      });
    const numeric = fc.oneof(
      fc.double({ min: 1e9, max: 2.5e9, noNaN: true }).map((x) => x.toFixed(9)),
      fc.tuple(digits(13), fc.integer({ min: 0, max: 6 }).chain(digits)).map(([a, b]) => `${a}.${b}`),
      digits(16),
      digits(19),
      fc.tuple(fc.constantFrom('1.7', '17', '.5'), fc.integer({ min: -3, max: 12 })).map(([m, e]) => `${m}e${e}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(iso, numeric), { minLength: 1, maxLength: 40 }), async (values) => {
        const ours = values.map((v) => {
          try {
            return eventTimeMicros(v)?.toString() ?? null;
          } catch (error) {
            if (error instanceof ImpossibleDateError) return 'raises';
            throw error;
          }
        });
        const theirs: (string | null)[] = [];
        for (const v of values) {
          try {
            const { rows } = await db.pool.query<{ us: string | null }>(
              `SELECT (extract(epoch FROM workflow_index.parse_event_time(to_jsonb($1::text), NULL)) * 1000000)::NUMERIC(20, 0)::text AS us`,
              [v],
            );
            theirs.push(rows[0]!.us);
          } catch {
            theirs.push('raises');
          }
        }
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 10 },
    );
  });

  it('canonical numbers (the double Fluent Bit\'s printing leaves, shortest plain decimal)', async () => {
    const numbers = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e30, max: 1e30 }).map((x) => (Number.isInteger(x) ? x.toFixed(1) : String(x))).filter((t) => !/e/.test(t)),
      fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x.toExponential()), // denormals and beyond 1e308 too: kept as written
      fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 20 })).map(([m, s]) => {
        const t = m.toString().padStart(s + 1, '0');
        return s === 0 ? t : `${t.slice(0, t.length - s)}.${t.slice(t.length - s)}`;
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(numbers, { minLength: 1, maxLength: 60 }), async (values) => {
        const { rows } = await db.pool.query<{ c: string }>('SELECT workflow_index.canonical_number(x::jsonb::text) AS c FROM unnest($1::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n', [values]);
        expect(values.map(canonicalNumber)).toEqual(rows.map((r) => r.c));
      }),
      RUNS,
    );
  });

  const jsonText = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)).map((t) => t.replace(/\\u0000/g, '\\ufffd'));
  const numberText = fc.oneof(fc.constantFrom('1.0E21', '-3.0E-7', '1.50', '0.000', '-0.0', '12345678901234567890', '1e2', '2.5e-1', '100', '0'));
  const payloadText = fc.oneof(jsonText, numberText, fc.array(numberText, { maxLength: 4 }).map((a) => `[${a.join(',')}]`));

  it('jsonb text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(payloadText, { minLength: 1, maxLength: 30 }), async (texts) => {
        const { rows } = await db.pool.query<{ t: string }>('SELECT x::jsonb::text AS t FROM unnest($1::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n', [texts]);
        expect(texts.map((t) => jsonbText(parseLosslessJson(t)))).toEqual(rows.map((r) => r.t));
      }),
      RUNS,
    );
  });

  it('jsonb order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(payloadText, payloadText), { minLength: 1, maxLength: 30 }), async (pairs) => {
        const { rows } = await db.pool.query<{ c: number }>(
          `SELECT CASE WHEN a::jsonb < b::jsonb THEN -1 WHEN a::jsonb > b::jsonb THEN 1 ELSE 0 END AS c
           FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(a, b, n) ORDER BY n`,
          [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
        );
        expect(pairs.map(([a, b]) => Math.sign(compareJsonb(parseLosslessJson(a), parseLosslessJson(b))))).toEqual(rows.map((r) => r.c));
      }),
      RUNS,
    );
  });

  it('payload leaves answer JSON filters exactly as PostgreSQL\'s `#>` with the filter candidates', async () => {
    const key = fc.constantFrom('a', 'b', 'x', '0', '1', 'amount');
    const scalar = fc.oneof(fc.constantFrom('1000', '1000.0', '1E3', '-0.0', '0', '2.50', 'true', 'false', 'null', '"1000"', '"x"', '"true"', '""'), fc.integer().map(String));
    const payload = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('value'), { maxLength: 3 }).map((a) => `[${a.join(',')}]`),
        fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 3, selector: ([k]) => k }).map((e) => `{${e.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`)),
    })).value;
    const filterValue = fc.constantFrom('1000', '1000.0', '1e3', '0', '-0', '2.5', 'true', 'false', 'null', 'x', '', '1', '7');
    const path = fc.array(key, { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(payload, path, filterValue), { minLength: 1, maxLength: 30 }), async (cases) => {
        const theirs: boolean[] = [];
        for (const [text, segments, value] of cases) {
          const { rows } = await db.pool.query<{ m: boolean | null }>('SELECT $1::jsonb #> $2::text[] = ANY($3::jsonb[]) AS m', [text, segments, jsonCandidates(value)]);
          theirs.push(rows[0]!.m === true);
        }
        const ours = cases.map(([text, segments, value]) => {
          const { leaves } = jsonLeaves(parseLosslessJson(text));
          return leafEntries(segments, value).some((entry) => leaves.includes(entry));
        });
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 15 },
    );
    expect(jsonLeaves(parseLosslessJson('{"a":[1.50,{"b":"x"}],"c":null}')).leaves).toEqual([`a${PATH_SEPARATOR}0${VALUE_SEPARATOR}n:1.5`, `a${PATH_SEPARATOR}1${PATH_SEPARATOR}b${VALUE_SEPARATOR}s:x`]);
  });

  it('an entry the index cannot hold, or a key holding a separator, marks the payload incomplete (its text is checked) instead of being indexed wrongly', () => {
    expect(jsonLeaves(parseLosslessJson('{"a":"x","b":1}')).complete).toBe(true);
    // a leaf over the keyword limit: not indexed, so `contains`/`gt`/`exists` would miss it
    expect(jsonLeaves(parseLosslessJson(`{"a":"${'x'.repeat(9000)}","b":1}`))).toEqual({ leaves: [`b${VALUE_SEPARATOR}n:1`], complete: false });
    // a key holding the path separator would read as the path a.b: no entry for its subtree
    expect(jsonLeaves(parseLosslessJson('{"a\\u001fb":"x","c":{"d":"y"}}'))).toEqual({ leaves: [`c${PATH_SEPARATOR}d${VALUE_SEPARATOR}s:y`], complete: false });
    expect(jsonPathEntries(parseLosslessJson(`{"${'k'.repeat(9000)}":1,"a\\u001fb":{"c":2},"d":3}`))).toEqual({ paths: ['d'], numbers: [`d${VALUE_SEPARATOR}${sortableNumber('3')}`], complete: false });
    expect(jsonPathEntries(parseLosslessJson('{"a":{"b":2}}')).complete).toBe(true);
    // a filter path with such a segment has no entry to look for: the reader checks every payload
    expect(leafEntries(['a\u001fb'], 'x')).toEqual([]);
    expect(leafEntries(['a', 'b'], 'x')).toEqual([`a${PATH_SEPARATOR}b${VALUE_SEPARATOR}s:x`]);
  });
});
