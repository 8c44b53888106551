// The rules version of the PostgreSQL normalizer and the fingerprint that holds it to its files: the recorded
// fingerprint matches normalizer/ (the check `npm test` runs); comments and whitespace outside literals never change
// it, anything inside a literal does (fast-check over generated SQL, and the shipped files themselves); and the
// checker, on a temporary copy of the folder, refuses a rule change without a version bump.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRulesRecord, recordRulesFingerprint, RulesFingerprintError, rulesFingerprintProblem } from '@workflow-index/testkit';
import { loadNormalizer, NORMALIZER_DIR, readRulesVersion, requiredSchema } from '../src/migrator.js';
import { definitionsFingerprint, normalizeSqlText, sqlFingerprint } from '../src/normalizer-fingerprint.js';
import { postgresqlRules, RULES_FINGERPRINT_FILE } from './support/normalizer-rules.js';

describe('the recorded rules fingerprint', () => {
  it('matches the normalizer folder and its RULES_VERSION (else: bump the version, then npm run rules:record)', () => {
    expect(rulesFingerprintProblem(postgresqlRules())).toBeNull();
  });

  it('is what the migrator records in the database, beside the rules version', () => {
    const record = readRulesRecord(join(NORMALIZER_DIR, RULES_FINGERPRINT_FILE));
    expect(record?.fingerprint).toBe(loadNormalizer().checksum);
    expect(requiredSchema()).toMatchObject({ normalizerChecksum: record?.fingerprint, normalizerRulesVersion: readRulesVersion() });
  });
});

// Generated SQL: tokens (keywords, identifiers, numbers, operators, punctuation, parameters, the three kinds of
// literal, dollar-quoted bodies holding tokens of their own) joined by gaps of whitespace and comments.
type Token = { readonly text: string } | { readonly tag: string; readonly body: readonly Token[] };

const PUNCTUATION = new Set(['(', ')', ',', ';', '[', ']']);
/** Nothing generated may hold a body's closing tag (`$b0$`, `$b1$`): PostgreSQL ends the body at its first one. */
const noTag = (s: string): boolean => !s.includes('$b');
const literalText = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '  ', '\n', '\t', "'", '"', '-', '--', '/*', '*/', '*', '/', '$', '$$', '\\', ';', 'é', '😀'), maxLength: 8 }).filter(noTag);
const commentText = fc.string({ unit: fc.constantFrom('a', ' ', "'", '"', '-', '$', '$$', '*', ';', 'é'), maxLength: 6 }).filter(noTag);

const literal = (kind: 'string' | 'escape' | 'identifier', content: string): Token => ({
  text: kind === 'string' ? `'${content.replaceAll("'", "''")}'`
    : kind === 'escape' ? `E'${content.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
    : `"${content.replaceAll('"', '""')}"`,
});
const literalKind = fc.constantFrom('string', 'escape', 'identifier') as fc.Arbitrary<'string' | 'escape' | 'identifier'>;
const codeToken: fc.Arbitrary<Token> = fc.oneof(
  fc.constantFrom('SELECT', 'CASE', 'WHEN', 'THEN', 'END', 'AS', 'FROM', 'e', 'E', 'U&', 'jsonb').map((text) => ({ text })),
  fc.stringMatching(/^[a-z_][a-z0-9_]{0,5}$/).map((text) => ({ text })),
  fc.stringMatching(/^[0-9]{1,3}(\.[0-9]{1,2})?$/).map((text) => ({ text })),
  fc.constantFrom('+', '-', '*', '/', '<', '>', '=', '<>', '<=', '||', '::', ':=', '->>', '#>>', '@>', '%', '~', '!=').map((text) => ({ text })),
  fc.constantFrom(...PUNCTUATION).map((text) => ({ text })),
  fc.integer({ min: 1, max: 12 }).map((n) => ({ text: `$${n}` })),
  fc.tuple(literalKind, literalText).map(([kind, content]) => literal(kind, content)),
);
const tokensAt = (depth: number): fc.Arbitrary<Token[]> =>
  fc.array(depth >= 2 ? codeToken : fc.oneof({ weight: 6, arbitrary: codeToken }, { weight: 1, arbitrary: tokensAt(depth + 1).map((body) => ({ tag: `$b${depth}$`, body })) }), { maxLength: 10 });
const tokens = tokensAt(0);

type Gap = readonly string[];
const gapPiece = fc.oneof(
  fc.constantFrom(' ', '  ', '\n', '\t', '\r\n', '\r', '\f', '\n\n    '),
  commentText.map((t) => `--${t}\n`),
  commentText.map((t) => `--${t}\r`),
  commentText.filter((t) => !t.endsWith('/')).map((t) => `/*${t}*/`),
  fc.tuple(commentText, commentText).map(([a, b]) => `/*${a} /* ${b} */ ${a}*/`),
);
const gap: fc.Arbitrary<Gap> = fc.array(gapPiece, { minLength: 1, maxLength: 3 });
/** Gaps to draw from, in order; where one neighbour is punctuation, a gap may also be empty. */
const gaps = fc.array(fc.tuple(gap, fc.boolean()), { minLength: 1, maxLength: 40 });

function render(list: readonly Token[], next: () => readonly [Gap, boolean] | null): string {
  let out = '';
  let previous: string | null = null;
  const lead = next();
  if (lead !== null) out += lead[0].join('');
  for (const token of list) {
    const text = 'text' in token ? token.text : `${token.tag}${render(token.body, next)}${token.tag}`;
    if (previous !== null) {
      const drawn = next();
      let separator = drawn === null ? ' ' : drawn[0].join('');
      if (drawn !== null && drawn[1] && (PUNCTUATION.has(previous) || ('text' in token && PUNCTUATION.has(token.text)))) separator = '';
      // `-` then `--…` would start the comment one character early: PostgreSQL reads it so too, so no generated gap does.
      if (previous.endsWith('-') && separator.startsWith('-')) separator = ` ${separator}`;
      out += separator;
    }
    out += text;
    previous = 'text' in token ? token.text : token.tag;
  }
  const trail = next();
  if (trail !== null) out += previous?.endsWith('-') && trail[0].join('').startsWith('-') ? ` ${trail[0].join('')}` : trail[0].join('');
  return out;
}

const plain = (list: readonly Token[]): string => render(list, () => null);
function spaced(list: readonly Token[], drawn: readonly (readonly [Gap, boolean])[]): string {
  let i = 0;
  return render(list, () => drawn[i++ % drawn.length]!);
}

describe('normalizeSqlText', () => {
  it('gives the same text whatever whitespace and comments lie between the tokens (fast-check)', () => {
    fc.assert(fc.property(tokens, gaps, (list, drawn) => {
      expect(normalizeSqlText(spaced(list, drawn))).toBe(normalizeSqlText(plain(list)));
      expect(sqlFingerprint(spaced(list, drawn))).toBe(sqlFingerprint(plain(list)));
    }), { numRuns: 400 });
  });

  it('gives another text when a literal changes, whitespace inside it included, in a body or not (fast-check)', () => {
    const different = fc.tuple(literalText, literalText).filter(([a, b]) => a !== b);
    fc.assert(fc.property(tokens, literalKind, different, tokens, fc.boolean(), gaps, gaps, (before, kind, [a, b], after, inBody, gapsA, gapsB) => {
      const wrap = (list: Token[]): Token[] => (inBody ? [{ text: 'AS' }, { tag: '$b0$', body: list }] : list);
      const one = spaced(wrap([...before, literal(kind, a), ...after]), gapsA);
      const other = spaced(wrap([...before, literal(kind, b), ...after]), gapsB);
      expect(sqlFingerprint(one)).not.toBe(sqlFingerprint(other));
    }), { numRuns: 400 });
  });

  it('reads literals, comments and dollar quotes as PostgreSQL does', () => {
    const cases: [string, string][] = [
      ["SELECT 'a -- not a comment' -- a comment\n, 1", "SELECT 'a -- not a comment',1"],
      ["SELECT E'it\\'s -- still text', 'it''s /* text */'", "SELECT E'it\\'s -- still text','it''s /* text */'"],
      ['SELECT "a  -- b", x/* nested /* comment */ still */+ y', 'SELECT "a  -- b",x+y'],
      ['SELECT 1 --dash\rFROM t', 'SELECT 1 FROM t'],
      ['AS $$\n  SELECT  1 -- one\n$$;', 'AS $$SELECT 1$$;'],
      ["AS $body$ SELECT '$$ -- kept' $body$", "AS $body$SELECT '$$ -- kept'$body$"],
      ['SELECT a$b, $1 ,$2', 'SELECT a$b,$1,$2'],
      ['SELECT a - -b, a- -b, a--b\n', 'SELECT a- -b,a- -b,a'],
      ['x :: int, x::int', 'x::int,x::int'],
      ["SELECT e'\\\\' FROM t", "SELECT e'\\\\' FROM t"],
      ["SELECT some'x'", "SELECT some'x'"],
    ];
    for (const [sql, normalized] of cases) expect([sql, normalizeSqlText(sql)]).toEqual([sql, normalized]);
    // Words and operators keep one space where they would otherwise join; a changed word is another text.
    expect(normalizeSqlText('SELECT a FROM t')).not.toBe(normalizeSqlText('SELECT aFROM t'));
    expect(normalizeSqlText('a < = b')).not.toBe(normalizeSqlText('a <= b'));
    expect(sqlFingerprint('SELECT upper(s)')).not.toBe(sqlFingerprint('SELECT lower(s)'));
  });
});

/** Every definition file re-laid out: comments gone, then a comment and new indentation before every line. */
function relaidOut(sql: string): string {
  return normalizeSqlText(sql).replaceAll(';', ';\n  -- a note; with a "quote" and a \'quote\'\n/* block */\n');
}

describe('the shipped definitions', () => {
  it('keep their fingerprint without any comment and with other layout and comments', () => {
    const { files, checksum } = loadNormalizer();
    for (const f of files) {
      expect([f.file, sqlFingerprint(normalizeSqlText(f.sql))]).toEqual([f.file, sqlFingerprint(f.sql)]);
      expect([f.file, sqlFingerprint(relaidOut(f.sql))]).toEqual([f.file, sqlFingerprint(f.sql)]);
    }
    expect(definitionsFingerprint(files.map((f) => ({ sql: relaidOut(f.sql) })))).toBe(checksum);
  });

  it('change it when a literal inside a function body changes', () => {
    const statuses = loadNormalizer().files.find((f) => f.file === '020-statuses.sql')!;
    expect(statuses.sql).toContain("WHEN 'CANCELED' THEN 'CANCELLED'");
    expect(sqlFingerprint(statuses.sql.replace("WHEN 'CANCELED' THEN 'CANCELLED'", "WHEN 'CANCELED ' THEN 'CANCELLED'"))).not.toBe(sqlFingerprint(statuses.sql));
  });
});

describe('the rules version check, on a copy of the normalizer folder', () => {
  const copy = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-rules-'));
    cpSync(NORMALIZER_DIR, dir, { recursive: true });
    return dir;
  };
  const edit = (dir: string, file: string, change: (sql: string) => string): void => writeFileSync(join(dir, file), change(readFileSync(join(dir, file), 'utf8')));
  const bump = (dir: string, to: number): void => edit(dir, 'RULES_VERSION', (text) => text.replace(/^\d+$/m, String(to)));
  const version = readRulesVersion()!;

  it('accepts a comment or whitespace edit without a bump', () => {
    const dir = copy();
    edit(dir, '070-task-executions.sql', (sql) => `-- a new first line\n${sql.replaceAll('\n', '\n\n').replaceAll('  ', '    ')}`);
    expect(rulesFingerprintProblem(postgresqlRules(dir))).toBeNull();
    expect(recordRulesFingerprint(postgresqlRules(dir))).toBe('unchanged');
  });

  it('refuses a rule change without a bump, naming the backend, the file, where to bump and the command', () => {
    const dir = copy();
    edit(dir, '020-statuses.sql', (sql) => sql.replace("WHEN 'CANCELED' THEN 'CANCELLED'", "WHEN 'CANCELED' THEN 'FAULTED'"));
    const problem = rulesFingerprintProblem(postgresqlRules(dir));
    expect(problem).toMatch(/^PostgreSQL normalization rules changed without a rules version bump \(changed: 020-statuses\.sql; /);
    expect(problem).toContain(`bump the version in ${join(dir, 'RULES_VERSION')}, then run \`npm run rules:record\``);
    // Recording it as it is refuses too, and writes nothing.
    const before = readFileSync(join(dir, RULES_FINGERPRINT_FILE), 'utf8');
    expect(() => recordRulesFingerprint(postgresqlRules(dir))).toThrow(RulesFingerprintError);
    expect(readFileSync(join(dir, RULES_FINGERPRINT_FILE), 'utf8')).toBe(before);
    // A new file is a change as well.
    const added = copy();
    writeFileSync(join(added, '130-probe.sql'), 'SELECT 1;');
    expect(rulesFingerprintProblem(postgresqlRules(added))).toMatch(/\(added: 130-probe\.sql; /);
  });

  it('after a bump asks for the record, and passes once it is recorded', () => {
    const dir = copy();
    edit(dir, '020-statuses.sql', (sql) => sql.replace("WHEN 'CANCELED' THEN 'CANCELLED'", "WHEN 'CANCELED' THEN 'FAULTED'"));
    bump(dir, version + 1);
    expect(rulesFingerprintProblem(postgresqlRules(dir))).toBe(`PostgreSQL normalization rules: the rules version is now ${version + 1}, recorded ${version}: run \`npm run rules:record\``);
    expect(recordRulesFingerprint(postgresqlRules(dir))).toBe('recorded');
    expect(rulesFingerprintProblem(postgresqlRules(dir))).toBeNull();
    expect(readRulesRecord(join(dir, RULES_FINGERPRINT_FILE))).toMatchObject({ rulesVersion: version + 1, fingerprint: loadNormalizer(dir).checksum });
    // A version never goes down.
    bump(dir, version);
    expect(rulesFingerprintProblem(postgresqlRules(dir))).toMatch(/the rules version went down to/);
    expect(() => recordRulesFingerprint(postgresqlRules(dir))).toThrow(RulesFingerprintError);
  });

  it('records a change that computes the same results under the same version only with a reason', () => {
    const dir = copy();
    edit(dir, '020-statuses.sql', (sql) => sql.replace('SELECT CASE upper(s)', 'SELECT CASE upper((s))'));
    expect(rulesFingerprintProblem(postgresqlRules(dir))).not.toBeNull();
    expect(() => recordRulesFingerprint(postgresqlRules(dir), { sameResults: '  ' })).toThrow(RulesFingerprintError);
    expect(recordRulesFingerprint(postgresqlRules(dir), { sameResults: 'parentheses only' })).toBe('recorded');
    expect(readRulesRecord(join(dir, RULES_FINGERPRINT_FILE))).toMatchObject({ rulesVersion: version, sameResults: 'parentheses only' });
    expect(rulesFingerprintProblem(postgresqlRules(dir))).toBeNull();
  });
});
