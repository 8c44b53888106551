// RULES_VERSION and the fingerprint that holds it to the rule sources: the recorded fingerprint matches the sources
// (the check `npm test` runs); every module the computation imports is either a rule or declared not to be one;
// comments and layout never change a source's fingerprint, code and literals do; and the checker, on a temporary copy
// of the sources, refuses a rule change without a version bump.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { readRulesRecord, recordRulesFingerprint, RulesFingerprintError, rulesFingerprintProblem } from '@workflow-index/testkit';
import { NOT_RULES, RULES_ROOT, RULES_SOURCES, RULES_VERSION } from '../src/normalizer-rules-version.js';
import { OPENSEARCH_RULES_RECORD, openSearchRules, REPO_ROOT, ruleModuleGraph, typeScriptFingerprint, unclassifiedRuleModules } from './support/rules-fingerprint.js';

const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');

describe('the recorded rules fingerprint', () => {
  it('matches RULES_SOURCES and RULES_VERSION (else: bump RULES_VERSION, then npm run rules:record)', () => {
    expect(rulesFingerprintProblem(openSearchRules())).toBeNull();
  });

  it('covers every module the computation imports: each is a rule source or declared not to be one', () => {
    const graph = ruleModuleGraph();
    expect(unclassifiedRuleModules(graph)).toEqual([]);
    // The walk sees through the events package's entry point to the modules themselves.
    expect(graph.get('server/opensearch/src/raw-event-parse.ts')).toContain('server/events/src/event-time.ts');
    expect(graph.get(RULES_ROOT)).toEqual(expect.arrayContaining(['server/opensearch/src/normalize-instance.ts', 'server/opensearch/src/raw-event-parse.ts']));
    // A module nobody declared is named.
    const { 'server/events/src/jsonb-order.ts': _declared, ...rest } = Object.fromEntries(RULES_SOURCES.map((path) => [path, path]));
    expect(unclassifiedRuleModules(graph, Object.keys(rest), NOT_RULES)).toEqual(['server/events/src/jsonb-order.ts']);
    // The lists do not overlap, and name files that exist.
    expect(RULES_SOURCES.filter((path) => path in NOT_RULES)).toEqual([]);
    for (const path of [...RULES_SOURCES, ...Object.keys(NOT_RULES)]) expect(read(path).length).toBeGreaterThan(0);
  });
});

/** The source with a comment before every statement and member, and its statements laid out again. */
function commentedAndRelaidOut(text: string): string {
  const file = ts.createSourceFile('rules.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const starts = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (ts.isStatement(node) || ts.isClassElement(node) || ts.isPropertyAssignment(node) || ts.isTypeElement(node)) starts.add(node.getStart(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  let out = '';
  let at = 0;
  for (const start of [...starts].sort((a, b) => a - b)) {
    out += text.slice(at, start) + '/* a note; with \'quotes\' */\n      // and a line\n    ';
    at = start;
  }
  return out + text.slice(at);
}

describe('typeScriptFingerprint', () => {
  it('ignores comments and layout in every rule source, the printer\'s own layout included', () => {
    for (const path of RULES_SOURCES) {
      const text = read(path);
      const printed = ts.createPrinter({ removeComments: true }).printFile(ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
      expect([path, typeScriptFingerprint(commentedAndRelaidOut(text))]).toEqual([path, typeScriptFingerprint(text)]);
      expect([path, typeScriptFingerprint(printed)]).toEqual([path, typeScriptFingerprint(text)]);
    }
  });

  it('ignores a trailing comma and where lines break; sees code, literals and a statement a line break ends', () => {
    const same: [string, string][] = [
      ['const o = { a: 1, b: [1, 2] };', 'const o = {\n  a: 1,\n  b: [\n    1,\n    2,\n  ],\n};'],
      ["f('x', `t ${a}`);", 'f(\n  "x", // why\n  `t ${a}`\n)'],
      ["const s = 'it\\'s';", 'const s = "it\'s";'],
      ['const a = [1, , 2];', 'const a = [1,, 2]'],
    ];
    for (const [a, b] of same) expect([a, typeScriptFingerprint(b)]).toEqual([a, typeScriptFingerprint(a)]);
    const different: [string, string][] = [
      ['const a = [,];', 'const a = [];'],
      ['function f() { return\n1 }', 'function f() { return 1 }'],
      ['const s = `a  b`;', 'const s = `a b`;'],
      ["const s = 'a';", "const s = 'b';"],
      ['const n = 32766;', 'const n = 32767;'],
      ['const r = /a b/;', 'const r = /a  b/;'],
      ['if (a < b) f();', 'if (a <= b) f();'],
    ];
    for (const [a, b] of different) expect([a, typeScriptFingerprint(b)]).not.toEqual([a, typeScriptFingerprint(a)]);
  });
});

describe('the rules version check, on a copy of the rule sources', () => {
  const copy = (): string => {
    const root = mkdtempSync(join(tmpdir(), 'wi-os-rules-'));
    for (const path of [...RULES_SOURCES, OPENSEARCH_RULES_RECORD]) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      cpSync(join(REPO_ROOT, path), join(root, path));
    }
    return root;
  };
  const edit = (root: string, path: string, change: (text: string) => string): void => writeFileSync(join(root, path), change(readFileSync(join(root, path), 'utf8')));
  const TASK_STATES = 'server/opensearch/src/task-states.ts';
  const ruleChange = (text: string): string => {
    expect(text).toContain('MAX_TASK_STATES = 1_000;');
    return text.replace('MAX_TASK_STATES = 1_000;', 'MAX_TASK_STATES = 1_001;');
  };

  it('accepts a comment or layout edit without a bump', () => {
    const root = copy();
    edit(root, TASK_STATES, (text) => `// a new first line\n${commentedAndRelaidOut(text)}`);
    expect(rulesFingerprintProblem(openSearchRules({ root }))).toBeNull();
  });

  it('refuses a rule change without a bump, naming the backend, the file, where to bump and the command', () => {
    const root = copy();
    edit(root, TASK_STATES, ruleChange);
    const problem = rulesFingerprintProblem(openSearchRules({ root }));
    expect(problem).toMatch(new RegExp(`^OpenSearch normalization rules changed without a rules version bump \\(changed: ${TASK_STATES.replaceAll('.', '\\.')}; `));
    expect(problem).toContain('bump the version in RULES_VERSION in server/opensearch/src/normalizer-rules-version.ts, then run `npm run rules:record`');
    expect(() => recordRulesFingerprint(openSearchRules({ root }))).toThrow(RulesFingerprintError);
  });

  it('after a bump asks for the record, and passes once it is recorded', () => {
    const root = copy();
    edit(root, TASK_STATES, ruleChange);
    const bumped = { root, rulesVersion: RULES_VERSION + 1 };
    expect(rulesFingerprintProblem(openSearchRules(bumped))).toBe(`OpenSearch normalization rules: the rules version is now ${RULES_VERSION + 1}, recorded ${RULES_VERSION}: run \`npm run rules:record\``);
    expect(recordRulesFingerprint(openSearchRules(bumped))).toBe('recorded');
    expect(rulesFingerprintProblem(openSearchRules(bumped))).toBeNull();
    expect(readRulesRecord(join(root, OPENSEARCH_RULES_RECORD))).toMatchObject({ rulesVersion: RULES_VERSION + 1, fingerprint: openSearchRules(bumped).current.fingerprint });
  });

  it('a source added to the list is a change too', () => {
    const root = copy();
    const extra = 'server/opensearch/src/extra-rule.ts';
    writeFileSync(join(root, extra), 'export const EXTRA = 1;\n');
    expect(rulesFingerprintProblem(openSearchRules({ root, sources: [...RULES_SOURCES, extra] }))).toMatch(/\(added: server\/opensearch\/src\/extra-rule\.ts; /);
  });
});
