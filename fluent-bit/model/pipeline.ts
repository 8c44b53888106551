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

import {
  type ClassicConfig,
  type ConfigSection,
  ClassicConfigError,
  expandEnvironment,
  properties,
  property,
  requiredProperty,
  sectionsOf,
} from './classic-config.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repairEventLine } from '@workflow-index/events';
import { FLUENT_BIT_ROOT, configFilePath } from './load-config.js';
import { opensearchDocumentLine } from './opensearch-document.js';
import { eventKubernetesLine } from './event-kubernetes.js';
import { type BuiltinMultilineParser, type TailRecord, isBuiltinMultilineParser, physicalLines, readTailRecords } from './builtin-multiline.js';
import { type RecordPath, parseRecordAccessor } from './record-accessor.js';
import { type FluentValue, FluentMap, isMap, textOf, toPlain } from './fluent-value.js';
import { type FluentBitVersion, parseFluentJson } from './flb-json-parser.js';
import { type LuaFunction, luaRepack, partialLineJoiner, replaceLog } from './lua-filter.js';
import { regexLineParser } from './regex-parser.js';

export type FluentRecord = Readonly<Record<string, unknown>>;

export interface PodMetadata {
  readonly podId: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly host: string;
  readonly podIp?: string;
  readonly containerHash?: string;
  readonly containerImage: string;
}

export interface PodReference {
  readonly namespace: string;
  readonly podName: string;
  readonly containerName: string;
}

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

export interface RewriteRuleDefinition {
  readonly filter: string;
  readonly key: RecordPath;
  readonly regex: RegExp;
  readonly newTag: string;
  readonly keep: boolean;
}

export interface FluentBitPipeline {
  /** Whether the tail input follows this file (its Path glob matches). */
  watches(path: string): boolean;
  /** Runs the whole content of one container log file through the pipeline. */
  readLogFile(path: string, content: Buffer, options?: ReadOptions): PipelineResult;
  readonly outputs: readonly OutputDefinition[];
  readonly rewriteRules: readonly RewriteRuleDefinition[];
  /** The expanded configuration the model runs. */
  readonly config: ClassicConfig;
}

interface RecordInFlight {
  readonly tag: string;
  readonly record: FluentMap;
  readonly time: number;
  readonly sourceLines: readonly number[];
}

interface FilterOutcome {
  readonly pass: readonly RecordInFlight[];
  readonly reemit: readonly RecordInFlight[];
  /** What the filter's drop counter adds (rewrite_tag counts a re-tag, lua counts -1). */
  readonly counted: number;
  /** Dropped by the join script but held in its state: not lost, so not reported as dropped. */
  readonly held?: boolean;
}

type FilterStep = (item: RecordInFlight) => FilterOutcome;

interface Filter {
  readonly alias: string;
  readonly match: (tag: string) => boolean;
  readonly apply: FilterStep;
  /** Source lines the filter holds in its state (the join script's parts). */
  readonly held?: () => number[];
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

  // Relative script paths resolve against the configuration's directory, as in Fluent Bit.
  const configDirectory = join(FLUENT_BIT_ROOT, '..', dirname(config.source));
  const filters = sectionsOf(config, 'FILTER').map((section, index) =>
    buildFilter(section, index, { parsers, podMetadata: options.podMetadata, configDirectory, version, luaScripts: options.luaScripts ?? {} }));
  const outputs = sectionsOf(config, 'OUTPUT').map((section, index): OutputDefinition => {
    const plugin = requiredProperty(section, 'Name');
    const match = property(section, 'Match');
    const matchRegex = property(section, 'Match_Regex');
    if ((match === undefined) === (matchRegex === undefined)) {
      throw new ClassicConfigError(`${config.source}:${section.line}: [OUTPUT] needs exactly one of Match and Match_Regex`);
    }
    const regex = match !== undefined ? globToRegExp(match, true) : new RegExp(matchRegex!);
    return { alias: property(section, 'Alias') ?? `${plugin}.${index}`, plugin, match: (tag) => regex.test(tag), matchText: match ?? matchRegex!, settings: section };
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
export function globToRegExp(pattern: string, crossesSlash: boolean): RegExp {
  const any = crossesSlash ? '.*' : '[^/]*';
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join(any)}$`);
}

interface FilterContext {
  readonly parsers: ClassicConfig;
  readonly podMetadata: PipelineOptions['podMetadata'];
  readonly configDirectory: string;
  readonly version: FluentBitVersion;
  readonly luaScripts: Readonly<Record<string, () => LuaFunction>>;
}

/** The TypeScript stand-ins of our Lua scripts (see lua-filter.ts for how each is proved equal). */
const BUILTIN_LUA_SCRIPTS: Readonly<Record<string, () => LuaFunction>> = {
  'join-partial-lines.lua': () => partialLineJoiner(),
  'repair-line.lua': () => (_tag, record) => {
    const log = record.get('log');
    const bytes = typeof log === 'string' ? Buffer.from(log, 'utf8') : Buffer.isBuffer(log) ? log : undefined;
    if (!bytes) return { code: 0 };
    const repaired = repairEventLine(bytes);
    return repaired.repairs.length === 0 ? { code: 0 } : { code: 2, record: replaceLog(record, Buffer.from(repaired.text, 'utf8')) };
  },
  'event-kubernetes.lua': () => (_tag, record) => {
    const log = record.get('log');
    const bytes = typeof log === 'string' ? Buffer.from(log, 'utf8') : Buffer.isBuffer(log) ? log : undefined;
    const changed = bytes ? eventKubernetesLine(bytes) : undefined;
    return changed ? { code: 2, record: replaceLog(record, changed) } : { code: 0 };
  },
  'opensearch-document.lua': () => (_tag, record) => {
    const log = record.get('log');
    const bytes = typeof log === 'string' ? Buffer.from(log, 'utf8') : Buffer.isBuffer(log) ? log : undefined;
    const changed = bytes ? opensearchDocumentLine(bytes) : undefined;
    return changed ? { code: 2, record: replaceLog(record, changed) } : { code: 0 };
  },
};

function buildFilter(section: ConfigSection, index: number, context: FilterContext): Filter {
  const name = requiredProperty(section, 'Name');
  const alias = property(section, 'Alias') ?? `${name}.${index}`;
  const matchText = property(section, 'Match');
  const matchRegex = property(section, 'Match_Regex');
  if ((matchText === undefined) === (matchRegex === undefined)) {
    throw new ClassicConfigError(`[FILTER] ${alias} needs exactly one of Match and Match_Regex`);
  }
  const regex = matchText !== undefined ? globToRegExp(matchText, true) : new RegExp(matchRegex!);
  const match = (tag: string): boolean => regex.test(tag);
  const keep = (item: RecordInFlight): FilterOutcome => ({ pass: [item], reemit: [], counted: 0 });
  const drop = (): FilterOutcome => ({ pass: [], reemit: [], counted: 1 });

  switch (name) {
    case 'parser': {
      const key = requiredProperty(section, 'Key_Name');
      const parserName = requiredProperty(section, 'Parser');
      const parse = parserFunction(context.parsers, parserName, context.version);
      const reserve = isOn(property(section, 'Reserve_Data'));
      const preserve = isOn(property(section, 'Preserve_Key'));
      return {
        alias,
        match,
        apply: (item) => {
          const value = item.record.get(key);
          const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.isBuffer(value) ? value : undefined;
          const parsed = bytes ? parse(bytes) : undefined;
          if (!parsed) return keep(item);
          const rest = preserve ? item.record : item.record.without([key]);
          if (!reserve) return keep({ ...item, record: preserve ? new FluentMap([[key, value!], ...parsed.entries]) : parsed });
          // plugins/filter_parser: the parsed fields, then the record's other keys, appended without deduplicating.
          // On a collision (time, stream, _p) the record's own key comes last, so the record accessor and the JSON
          // printer read it (observed with 4.0.13 and 4.2.8: the event's field of that name is not in the output).
          return keep({ ...item, record: new FluentMap([...parsed.entries, ...rest.entries]) });
        },
      };
    }
    case 'grep': {
      const regexRules = properties(section, 'Regex').map(parseGrepRule);
      const excludeRules = properties(section, 'Exclude').map(parseGrepRule);
      const logicalOp = (property(section, 'Logical_Op') ?? 'legacy').toLowerCase();
      if (!['legacy', 'and', 'or'].includes(logicalOp)) throw new ClassicConfigError(`[FILTER] ${alias}: Logical_Op ${logicalOp}`);
      if (logicalOp !== 'legacy' && regexRules.length > 0 && excludeRules.length > 0) {
        throw new ClassicConfigError(`[FILTER] ${alias}: Both 'regex' and 'exclude' are set (Fluent Bit refuses this with Logical_Op)`);
      }
      return {
        alias,
        match,
        apply: (item) => {
          const matches = (rule: GrepRule): boolean => {
            const text = textOf(readValue(item.record, rule.path));
            return text !== undefined && rule.regex.test(text);
          };
          if (logicalOp !== 'legacy') {
            const rules = regexRules.length > 0 ? regexRules : excludeRules;
            const found = logicalOp === 'or' ? rules.some(matches) : rules.every(matches);
            return (regexRules.length > 0) === found ? keep(item) : drop();
          }
          if (!regexRules.every(matches)) return drop();
          if (excludeRules.some(matches)) return drop();
          return keep(item);
        },
      };
    }
    case 'kubernetes': {
      const prefix = property(section, 'Kube_Tag_Prefix') ?? 'kube.var.log.containers.';
      const labels = property(section, 'Labels') === undefined || isOn(property(section, 'Labels'));
      if (isOn(property(section, 'Merge_Log'))) throw new ClassicConfigError(`[FILTER] ${alias}: Merge_Log is not modelled`);
      return {
        alias,
        match,
        apply: (item) => {
          const pod = podFromTag(item.tag, prefix);
          const meta = pod && context.podMetadata ? context.podMetadata(pod) : undefined;
          // plugins/filter_kubernetes: a failed API lookup leaves the record without `kubernetes` (lookup_pod_meta
          // returns an empty buffer, nothing is appended).
          if (!pod || !meta) return keep(item);
          const entries: [string, FluentValue][] = [
            ['pod_name', pod.podName],
            ['namespace_name', pod.namespace],
            ['pod_id', meta.podId],
          ];
          if (labels) entries.push(['labels', new FluentMap(Object.entries(meta.labels))]);
          entries.push(['host', meta.host]);
          if (meta.podIp !== undefined) entries.push(['pod_ip', meta.podIp]);
          entries.push(['container_name', pod.containerName], ['docker_id', pod.dockerId]);
          if (meta.containerHash !== undefined) entries.push(['container_hash', meta.containerHash]);
          entries.push(['container_image', meta.containerImage]);
          return keep({ ...item, record: item.record.with('kubernetes', new FluentMap(entries)) });
        },
      };
    }
    case 'rewrite_tag': {
      const rules = parseRewriteRules(section);
      return {
        alias,
        match,
        apply: (item) => {
          const rule = rules.find((r) => {
            const text = textOf(readValue(item.record, r.key));
            return text !== undefined && r.regex.test(text);
          });
          if (!rule) return keep(item);
          const emitted = { ...item, tag: rule.newTag };
          // Fluent Bit counts every record it does not keep under the old tag as a drop, re-tagged or not.
          return { pass: rule.keep ? [item] : [], reemit: [emitted], counted: rule.keep ? 0 : 1 };
        },
      };
    }
    case 'lua': {
      const script = requiredProperty(section, 'script');
      const call = requiredProperty(section, 'call');
      let source: string;
      try {
        source = readFileSync(configFilePath(context.configDirectory, script), 'utf8');
      } catch {
        throw new ClassicConfigError(`[FILTER] ${alias}: script ${script} not found next to the configuration`);
      }
      if (!new RegExp(`^function ${call}\\(`, 'm').test(source)) throw new ClassicConfigError(`[FILTER] ${alias}: ${script} defines no function ${call}`);
      const standIn = context.luaScripts[script] ?? BUILTIN_LUA_SCRIPTS[script];
      if (!standIn) throw new ClassicConfigError(`[FILTER] ${alias}: no model of ${script}`);
      const fn = standIn();
      // Bookkeeping of the model, not of Fluent Bit: which physical lines a joined record was made of. The join
      // script holds parts per (tag, stream); a part it drops is held, and its lines go to the next record it
      // emits for that key.
      const joins = script === 'join-partial-lines.lua';
      const heldLines = new Map<string, number[]>();
      const keyOf = (item: RecordInFlight): string => `${item.tag}\u0000${textOf(item.record.get('stream')) ?? ''}`;
      return {
        alias,
        match,
        held: () => [...heldLines.values()].flat(),
        apply: (item) => {
          const result = fn(item.tag, item.record);
          if (result.code === -1) {
            if (!joins) return drop();
            const key = keyOf(item);
            if (item.record.get('_p') === 'F') {
              // The end of a line cut at the cap: its discarded parts are gone with it.
              heldLines.delete(key);
              return drop();
            }
            heldLines.set(key, [...(heldLines.get(key) ?? []), ...item.sourceLines]);
            return { ...drop(), held: true };
          }
          let sourceLines = item.sourceLines;
          if (joins && (item.record.get('_p') === 'F' || ('record' in result && result.record.has('wi_join_truncated')))) {
            sourceLines = [...(heldLines.get(keyOf(item)) ?? []), ...item.sourceLines];
            heldLines.delete(keyOf(item));
          }
          if (!('record' in result)) return keep({ ...item, sourceLines });
          return keep({ ...item, sourceLines, record: luaRepack(result.record) as FluentMap });
        },
      };
    }
    default:
      throw new ClassicConfigError(`filter ${name} (${alias}) is not modelled`);
  }
}

/** Record accessor lookup on a msgpack-shaped record (the last entry of a repeated key, as src/flb_ra_key.c). */
export function readValue(record: FluentMap, path: RecordPath): FluentValue | undefined {
  let value: FluentValue | undefined = record;
  for (const segment of path) {
    if (typeof segment === 'number') {
      if (!Array.isArray(value)) return undefined;
      value = value[segment];
    } else {
      if (!isMap(value)) return undefined;
      value = value.get(segment);
    }
  }
  return value;
}

interface GrepRule {
  readonly path: RecordPath;
  readonly regex: RegExp;
}

function parseGrepRule(text: string): GrepRule {
  const match = /^(\S+)\s+(.+)$/.exec(text.trim());
  if (!match) throw new ClassicConfigError(`grep rule needs a key and a regex: ${text}`);
  return { path: parseRecordAccessor(match[1]!), regex: new RegExp(match[2]!) };
}

function parseRewriteRules(section: ConfigSection): RewriteRuleDefinition[] {
  const alias = property(section, 'Alias') ?? 'rewrite_tag';
  return properties(section, 'Rule').map((text) => {
    const tokens = text.trim().split(/\s+/);
    if (tokens.length !== 4) throw new ClassicConfigError(`[FILTER] ${alias}: Rule needs KEY REGEX NEW_TAG KEEP, got: ${text}`);
    const [key, regex, newTag, keep] = tokens as [string, string, string, string];
    if (newTag.includes('$')) throw new ClassicConfigError(`[FILTER] ${alias}: tags composed from record fields are not modelled`);
    if (!/^(true|false|on|off)$/i.test(keep)) throw new ClassicConfigError(`[FILTER] ${alias}: KEEP must be true or false, got ${keep}`);
    return { filter: alias, key: parseRecordAccessor(key), regex: new RegExp(regex), newTag, keep: isOn(keep) };
  });
}

function parserFunction(parsers: ClassicConfig, name: string, version: FluentBitVersion): (bytes: Buffer) => FluentMap | undefined {
  const section = sectionsOf(parsers, 'PARSER').find((s) => property(s, 'Name') === name);
  if (!section) throw new ClassicConfigError(`parser ${name} is not defined in ${parsers.source}`);
  const format = requiredProperty(section, 'Format');
  if (format !== 'json') throw new ClassicConfigError(`parser ${name}: format ${format} is not modelled`);
  if (property(section, 'Time_Key') !== undefined) throw new ClassicConfigError(`parser ${name}: Time_Key is not modelled`);
  return (bytes) => parseFluentJson(bytes, version);
}

interface PodFromTag extends PodReference {
  readonly dockerId: string;
}

// The kubernetes filter's default tag regex: <pod>_<namespace>_<container>-<64 hex id>.log
const KUBE_FILE = /^([a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*)_([^_]+)_(.+)-([a-z0-9]{64})\.log$/;

function podFromTag(tag: string, prefix: string): PodFromTag | undefined {
  if (!tag.startsWith(prefix)) return undefined;
  const match = KUBE_FILE.exec(tag.slice(prefix.length));
  if (!match) return undefined;
  return { podName: match[1]!, namespace: match[2]!, containerName: match[3]!, dockerId: match[4]! };
}

function isOn(value: string | undefined): boolean {
  return value !== undefined && /^(on|true|yes|1)$/i.test(value);
}

