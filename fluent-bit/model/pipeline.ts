// An executable model of a Fluent Bit pipeline, built from our classic configuration files (never from copies
// of their values): tail input (path glob, tag expansion, Buffer_Max_Size / Skip_Long_Lines, a regex line parser
// or the built-in multiline parsers with their flush timer), the filters our configs use (lua, parser, grep, kubernetes, rewrite_tag) in file
// order with their Match patterns, and output routing by Match / Match_Regex. Records are msgpack-shaped
// (fluent-value.ts): integers and doubles differ, `log` is bytes, keys may repeat; the JSON parser is the one
// of the chosen version (flb-json-parser.ts). Each filter's drop counter is kept as
// fluentbit_filter_drop_records_total{name=<Alias>} counts it, quirks included. It stands in for the Fluent Bit binary, which the build machines cannot run: the tests
// feed it container log files and check where every line ends up, and the local e2e writes its output to
// PostgreSQL in the exact statement shape of the pgsql output.
//
// Semantics follow the Fluent Bit sources: filters apply in order to records whose tag matches; grep `Regex`
// rules must all match (any one with `Logical_Op or`; a missing key does not match), any `Exclude` match drops;
// the parser filter with Reserve_Data keeps the record's other keys after the parsed ones (a collision leaves the
// key twice; the record accessor reads the last entry of a repeated key, and the JSON printer prints only that
// one, flb-json-printer.ts); rewrite_tag takes the first
// matching rule, re-emits the record under the new tag through the emitter input (so it passes the filter chain
// again from the top) and drops the original unless `keep` is true; a record no output matches is discarded.

import { dirname, join } from 'node:path';
import { type BuiltinMultilineParser, isBuiltinMultilineParser, physicalLines, readTailRecords, type TailRecord } from './builtin-multiline.js';
import { type ClassicConfig, ClassicConfigError, type ConfigSection, expandEnvironment, isOn, property, requiredProperty, sectionsOf } from './classic-config.js';
import type { FluentBitVersion } from './flb-json-parser.js';
import { FluentMap, toPlain } from './fluent-value.js';
import { buildFilter } from './filters/build-filter.js';
import type { RecordInFlight } from './filters/filter.js';
import type { PodMetadata, PodReference } from './filters/kubernetes-filter.js';
import { parseRewriteRules, type RewriteRuleDefinition } from './filters/rewrite-tag-filter.js';
import { FLUENT_BIT_ROOT } from './load-config.js';
import type { LuaFunction } from './lua-filter.js';
import { regexLineParser } from './regex-parser.js';
import { globToRegExp, tagMatcher } from './tag-match.js';

export type { PodMetadata, PodReference } from './filters/kubernetes-filter.js';
export type { RewriteRuleDefinition } from './filters/rewrite-tag-filter.js';
export { globToRegExp } from './tag-match.js';
export { readValue } from './record-accessor.js';

export type FluentRecord = Readonly<Record<string, unknown>>;

export interface PipelineOptions {
  readonly config: ClassicConfig;
  readonly parsers: ClassicConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** What the kubernetes filter would get from the API server; undefined = lookup failed. */
  readonly podMetadata?: (pod: PodReference) => PodMetadata | undefined;
  /** Clock for lines no parser recognizes (Fluent Bit stamps them with the read time). */
  readonly now?: () => number;
  /** Whose JSON parser the parser filter uses (default: 4.0.13, the version the DaemonSet pins). */
  readonly version?: FluentBitVersion;
  /** Stand-ins for Lua scripts by file name, replacing the built-in ones (tests of other scripts). */
  readonly luaScripts?: Readonly<Record<string, () => LuaFunction>>;
}

export interface DeliveredRecord {
  readonly output: string;
  readonly plugin: string;
  readonly tag: string;
  /** Plain view of `value` for assertions (see toPlain). */
  readonly record: FluentRecord;
  /** The record as Fluent Bit holds it. */
  readonly value: FluentMap;
  readonly time: number;
  readonly sourceLines: readonly number[];
}

export interface DroppedRecord {
  /** `filter <alias>` or `routing` */
  readonly stage: string;
  readonly tag: string;
  readonly record: FluentRecord;
  readonly sourceLines: readonly number[];
}

export interface PipelineResult {
  readonly delivered: readonly DeliveredRecord[];
  readonly dropped: readonly DroppedRecord[];
  /** fluentbit_filter_drop_records_total by filter Alias, as the binary counts it (only filters that counted). */
  readonly filterDrops: Readonly<Record<string, number>>;
  /** Source lines of split-line parts still held by the join script when the input ended (awaiting their F). */
  readonly held: readonly number[];
}

export interface ReadOptions {
  /** Seconds since the input started at which tail reads each physical line (1-based); default all at 0. */
  readonly arrival?: (line: number) => number;
}

export interface OutputDefinition {
  readonly alias: string;
  readonly plugin: string;
  readonly match: (tag: string) => boolean;
  readonly matchText: string;
  readonly settings: ConfigSection;
}

/** The tail input's settings that decide what a restart re-reads (tail-input.ts runs them). */
export interface TailSettings {
  /** DB: positions are stored (else every start reads every file from Read_from_Head's place). */
  readonly db: boolean;
  readonly compareFilename: boolean;
  readonly readFromHead: boolean;
}

export interface FluentBitPipeline {
  /** Whether the tail input follows this file (its Path glob matches). */
  watches(path: string): boolean;
  readonly tail: TailSettings;
  /** Runs the whole content of one container log file through the pipeline. */
  readLogFile(path: string, content: Buffer, options?: ReadOptions): PipelineResult;
  readonly outputs: readonly OutputDefinition[];
  readonly rewriteRules: readonly RewriteRuleDefinition[];
  /** The expanded configuration the model runs. */
  readonly config: ClassicConfig;
}

const MAX_REEMIT_DEPTH = 4; // a rewrite loop (new tag matched by the same rewrite_tag) is a config error

export function createPipeline(options: PipelineOptions): FluentBitPipeline {
  const config = expandEnvironment(options.config, options.env);
  const parsers = options.parsers;
  const now = options.now ?? (() => Date.now() / 1000);
  const version = options.version ?? '4.0.13';

  const inputs = sectionsOf(config, 'INPUT');
  if (inputs.length !== 1) throw new ClassicConfigError(`${config.source}: the model expects exactly one [INPUT], found ${inputs.length}`);
  const input = inputs[0]!;
  if (requiredProperty(input, 'Name') !== 'tail') throw new ClassicConfigError(`${config.source}: only the tail input is modelled`);
  const pathGlob = globToRegExp(requiredProperty(input, 'Path'), false);
  const tagTemplate = requiredProperty(input, 'Tag');
  const multiline = (property(input, 'multiline.parser') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const name of multiline) {
    if (!isBuiltinMultilineParser(name)) throw new ClassicConfigError(`${config.source}: multiline parser ${name} is not a built-in the model knows`);
  }
  const lineParserName = property(input, 'Parser');
  if (lineParserName !== undefined && multiline.length > 0) throw new ClassicConfigError(`${config.source}: tail Parser together with multiline.parser is not modelled`);
  const lineParser = lineParserName !== undefined ? regexLineParser(parsers, lineParserName) : undefined;
  const maxLineBytes = longestReadableLine(property(input, 'Buffer_Max_Size'));
  const skipLongLines = isOn(property(input, 'Skip_Long_Lines'));
  const tail: TailSettings = {
    db: property(input, 'DB') !== undefined,
    compareFilename: isOn(property(input, 'DB.compare_filename')),
    readFromHead: isOn(property(input, 'Read_from_Head')),
  };

  // Relative script paths resolve against the configuration's directory, as in Fluent Bit.
  const configDirectory = join(FLUENT_BIT_ROOT, '..', dirname(config.source));
  const filters = sectionsOf(config, 'FILTER').map((section, index) =>
    buildFilter(section, index, { parsers, podMetadata: options.podMetadata, configDirectory, version, luaScripts: options.luaScripts ?? {} }));
  const outputs = sectionsOf(config, 'OUTPUT').map((section, index): OutputDefinition => {
    const plugin = requiredProperty(section, 'Name');
    const match = tagMatcher(section, `${config.source}:${section.line}: [OUTPUT]`);
    return { alias: property(section, 'Alias') ?? `${plugin}.${index}`, plugin, match, matchText: property(section, 'Match') ?? property(section, 'Match_Regex')!, settings: section };
  });
  const rewriteRules = sectionsOf(config, 'FILTER')
    .filter((s) => requiredProperty(s, 'Name') === 'rewrite_tag')
    .flatMap((s) => parseRewriteRules(s));

  const route = (item: RecordInFlight, depth: number, result: { delivered: DeliveredRecord[]; dropped: DroppedRecord[]; filterDrops: Record<string, number> }): void => {
    if (depth > MAX_REEMIT_DEPTH) throw new ClassicConfigError(`rewrite_tag loop for tag ${item.tag}`);
    let batch: RecordInFlight[] = [item];
    for (const filter of filters) {
      const next: RecordInFlight[] = [];
      for (const current of batch) {
        if (!filter.match(current.tag)) {
          next.push(current);
          continue;
        }
        const outcome = filter.apply(current);
        if (outcome.counted > 0) result.filterDrops[filter.alias] = (result.filterDrops[filter.alias] ?? 0) + outcome.counted;
        next.push(...outcome.pass);
        for (const emitted of outcome.reemit) route(emitted, depth + 1, result);
        if (outcome.pass.length === 0 && outcome.reemit.length === 0 && !outcome.held) {
          result.dropped.push({ stage: `filter ${filter.alias}`, tag: current.tag, record: plainRecord(current.record), sourceLines: current.sourceLines });
        }
      }
      batch = next;
    }
    for (const current of batch) {
      const targets = outputs.filter((o) => o.match(current.tag));
      if (targets.length === 0) result.dropped.push({ stage: 'routing', tag: current.tag, record: plainRecord(current.record), sourceLines: current.sourceLines });
      for (const output of targets) {
        result.delivered.push({
          output: output.alias, plugin: output.plugin, tag: current.tag, record: plainRecord(current.record), value: current.record, time: current.time, sourceLines: current.sourceLines,
        });
      }
    }
  };

  const tailRecords = (content: Buffer, arrival: ((line: number) => number) | undefined): TailRecord[] => {
    if (!lineParser) return readTailRecords(content, multiline as BuiltinMultilineParser[], now, arrival);
    const records: TailRecord[] = [];
    for (const { line, lineNo } of physicalLines(content)) {
      const parsed = lineParser.parse(line);
      records.push(parsed
        ? { record: parsed.record, time: Number.isNaN(parsed.time) ? now() : parsed.time, sourceLines: [lineNo] }
        : { record: new FluentMap([['log', Buffer.from(line)]]), time: now(), sourceLines: [lineNo] });
    }
    return records;
  };

  return {
    config,
    outputs,
    rewriteRules,
    tail,
    watches: (path) => pathGlob.test(path),
    readLogFile(path, content, readOptions = {}) {
      const result = { delivered: [] as DeliveredRecord[], dropped: [] as DroppedRecord[], filterDrops: {} as Record<string, number> };
      if (!pathGlob.test(path)) return { ...result, held: [] };
      const tag = expandTailTag(tagTemplate, path);
      const { readable, skipped } = applyBufferMaxSize(content, maxLineBytes, skipLongLines);
      for (const lineNo of skipped) result.dropped.push({ stage: 'input skip_long_lines', tag, record: {}, sourceLines: [lineNo] });
      for (const r of tailRecords(readable, readOptions.arrival)) route({ tag, record: r.record, time: r.time, sourceLines: r.sourceLines }, 0, result);
      return { ...result, held: filters.flatMap((f) => f.held?.() ?? []).sort((a, b) => a - b) };
    },
  };
}

/**
 * The longest physical line tail reads, in bytes without its newline (plugins/in_tail): Buffer_Max_Size is parsed
 * with decimal units (`256k` = 256,000, src/flb_utils.c flb_utils_size_to_bytes), made odd-plus-one
 * (tail_config.c: when buf_max_size - 1 is odd it is incremented), and the buffer keeps one byte free, so the line and
 * its newline must fit in buf_max_size - 1 bytes. Default 32k.
 */
export function longestReadableLine(setting: string | undefined): number {
  const match = /^\s*(\d+)\s*([kKmMgG]?)[bB]?\s*$/.exec(setting ?? '32k');
  if (!match) throw new ClassicConfigError(`tail Buffer_Max_Size ${setting} is not modelled`);
  const unit = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[match[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  let size = Number(match[1]) * unit;
  if ((size - 1) % 2 !== 0) size++;
  return size - 2;
}

/**
 * tail with Skip_Long_Lines On drops a physical line that does not fit (one warning per file, no metric, no
 * trace of the line); Off stops reading the file at that line ("requires a larger buffer size ... Skipping file").
 * Skipped lines are blanked (kept as empty lines, so line numbers stay).
 */
function applyBufferMaxSize(content: Buffer, maxLineBytes: number, skipLongLines: boolean): { readable: Buffer; skipped: number[] } {
  const skipped: number[] = [];
  const parts: Buffer[] = [];
  let start = 0;
  let copied = 0;
  for (let lineNo = 1; start < content.length; lineNo++) {
    let end = content.indexOf(0x0a, start);
    if (end === -1) end = content.length;
    if (end - start > maxLineBytes) {
      skipped.push(lineNo);
      parts.push(content.subarray(copied, start));
      if (!skipLongLines) return { readable: Buffer.concat(parts), skipped };
      copied = end;
    }
    start = end + 1;
  }
  if (skipped.length === 0) return { readable: content, skipped };
  parts.push(content.subarray(copied));
  return { readable: Buffer.concat(parts), skipped };
}

/** The plain view, computed when first read (a 20,000-level record need never be converted). */
function plainRecord(record: FluentMap): FluentRecord {
  let plain: FluentRecord | undefined;
  return new Proxy({}, {
    get: (_, key) => Reflect.get((plain ??= toPlain(record) as FluentRecord), key),
    has: (_, key) => Reflect.has((plain ??= toPlain(record) as FluentRecord), key),
    ownKeys: () => Reflect.ownKeys((plain ??= toPlain(record) as FluentRecord)),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor((plain ??= toPlain(record) as FluentRecord), key),
  }) as FluentRecord;
}

/** tail's `Tag kube.*`: the `*` becomes the file path with `/` turned into `.` (leading slash dropped). */
export function expandTailTag(template: string, path: string): string {
  return template.includes('*') ? template.replace('*', path.replace(/^\//, '').replace(/\//g, '.')) : template;
}

/** Fluent Bit patterns: `*` matches any run of characters. For file paths (glob(3)) it does not cross `/`. */

