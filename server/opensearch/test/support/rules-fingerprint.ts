// The fingerprint of the OpenSearch normalization rules (RULES_SOURCES in src/normalizer-rules-version.ts), and the
// walk that checks the list is complete. A source's fingerprint is taken from its syntax, not its text: the
// TypeScript printer drops the comments and writes every statement with its semicolon (so a line break that ends a
// statement still counts), and the printed file is then read as a sequence of tokens, so no layout counts (indents,
// blank lines, where a line is broken), nor the quotes of a string or a trailing comma.
import type * as TS from 'typescript';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BackendRules } from '@workflow-index/testkit';
import { NOT_RULES, RULES_ROOT, RULES_SOURCES, RULES_VERSION } from '../../src/normalizer-rules-version.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** The recorded fingerprint of the OpenSearch rules (relative to the repository). */
export const OPENSEARCH_RULES_RECORD = 'server/opensearch/rules-fingerprint.json';

let compiler: typeof TS | undefined;
/** The TypeScript compiler, loaded on first use: every suite importing the OpenSearch test support would pay for it. */
function typescript(): typeof TS {
  return (compiler ??= createRequire(import.meta.url)('typescript') as typeof TS);
}

/** The tokens of a TypeScript source without comments and layout, one space apart. */
export function normalizeTypeScriptText(text: string): string {
  const ts = typescript();
  const parse = (source: string): TS.SourceFile => ts.createSourceFile('rules.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const printed = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed }).printFile(parse(text));
  const file = parse(printed);
  const tokens: string[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isStringLiteral(node)) {
      tokens.push(JSON.stringify(node.text));
      return;
    }
    const children = node.getChildren(file);
    if (children.length === 0) {
      if (node.kind !== ts.SyntaxKind.EndOfFileToken) tokens.push(node.getText(file));
      return;
    }
    children.forEach((child, i) => {
      if (child.kind === ts.SyntaxKind.CommaToken && i === children.length - 1 && !ts.isOmittedExpression(children[i - 1] ?? child)) return;
      visit(child);
    });
  };
  visit(file);
  return tokens.join(' ');
}

export function typeScriptFingerprint(text: string): string {
  return sha256(normalizeTypeScriptText(text));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface OpenSearchRulesOptions {
  /** Where the sources are read (a copy of the repository in tests). */
  readonly root?: string;
  readonly rulesVersion?: number;
  readonly sources?: readonly string[];
  /** The record's path relative to `root`. */
  readonly record?: string;
}

/** The OpenSearch rules now: RULES_VERSION and the fingerprint of every source of RULES_SOURCES. */
export function openSearchRules(options: OpenSearchRulesOptions = {}): BackendRules {
  const root = options.root ?? REPO_ROOT;
  const sources = [...(options.sources ?? RULES_SOURCES)].sort();
  const files = Object.fromEntries(sources.map((path) => [path, typeScriptFingerprint(readFileSync(join(root, path), 'utf8'))]));
  return {
    backend: 'OpenSearch',
    versionPlace: 'RULES_VERSION in server/opensearch/src/normalizer-rules-version.ts',
    recordFile: join(root, options.record ?? OPENSEARCH_RULES_RECORD),
    current: { rulesVersion: options.rulesVersion ?? RULES_VERSION, fingerprint: sha256(sources.map((path) => `${path}\n${files[path]}`).join('\n')), files },
  };
}

/**
 * Every module the computation reaches from `rootModule` through value imports (type-only imports change no
 * document), as repository paths, with the modules it imports. Modules outside the repository (node_modules, Node)
 * are left out.
 */
export function ruleModuleGraph(rootModule: string = RULES_ROOT, root: string = REPO_ROOT): ReadonlyMap<string, readonly string[]> {
  const ts = typescript();
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.base.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (parsed === undefined) throw new Error(`cannot read ${join(root, 'tsconfig.base.json')}`);
  // Only the repository's own files are read: the graph needs which declaration an import names, not any type.
  const options: TS.CompilerOptions = { ...parsed.options, noEmit: true, noLib: true, types: [] };
  const host = ts.createCompilerHost(options, true);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, create) =>
    fileName.split(/[\\/]/).includes('node_modules') ? undefined : read(fileName, languageVersion, onError, create);
  const program = ts.createProgram({ rootNames: [join(root, rootModule)], options, host });
  const checker = program.getTypeChecker();
  const repoPath = (file: TS.SourceFile): string => relative(root, file.fileName).split(sep).join('/');
  const graph = new Map<string, string[]>();
  const pending = [program.getSourceFile(join(root, rootModule))];
  while (pending.length > 0) {
    const file = pending.pop();
    if (file === undefined || graph.has(repoPath(file))) continue;
    const imports = new Set<TS.SourceFile>();
    for (const name of valueImportNames(file)) {
      const symbol = checker.getSymbolAtLocation(name);
      const target = symbol !== undefined && (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol;
      for (const declaration of target?.declarations ?? []) {
        const declared = declaration.getSourceFile();
        if (declared !== file && !declared.isDeclarationFile && !relative(root, declared.fileName).startsWith('..')) imports.add(declared);
      }
    }
    graph.set(repoPath(file), [...imports].map(repoPath).sort());
    pending.push(...imports);
  }
  return graph;
}

/** The names a module imports or re-exports as values (what `import type` and `type` specifiers leave out). */
function valueImportNames(file: TS.SourceFile): TS.Identifier[] {
  const ts = typescript();
  const names: TS.Identifier[] = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause !== undefined && !statement.importClause.isTypeOnly) {
      const { name, namedBindings } = statement.importClause;
      if (name !== undefined) names.push(name);
      if (namedBindings !== undefined && ts.isNamedImports(namedBindings)) names.push(...namedBindings.elements.filter((e) => !e.isTypeOnly).map((e) => e.name));
      if (namedBindings !== undefined && ts.isNamespaceImport(namedBindings)) names.push(namedBindings.name);
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.filter((e) => !e.isTypeOnly).map((e) => e.name).filter((n): n is TS.Identifier => ts.isIdentifier(n)));
    }
  }
  return names;
}

/** Modules the computation reaches that are neither in RULES_SOURCES nor in NOT_RULES. */
export function unclassifiedRuleModules(
  graph: ReadonlyMap<string, readonly string[]> = ruleModuleGraph(),
  sources: readonly string[] = RULES_SOURCES,
  notRules: Readonly<Record<string, string>> = NOT_RULES,
): string[] {
  const rules = new Set(sources);
  return [...graph.keys()].filter((path) => !rules.has(path) && !(path in notRules)).sort();
}
