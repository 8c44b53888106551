// An executable model of a Fluent Bit pipeline, built from our classic configuration files (never from copies
// of their values): tail input (path glob, tag expansion, built-in multiline parsers), the filters our configs
// use (parser, grep, kubernetes, rewrite_tag) in file order with their Match patterns, and output routing by
// Match / Match_Regex. It stands in for the Fluent Bit binary, which the build machines cannot run: the tests
// feed it container log files and check where every line ends up, and the local e2e writes its output to
// PostgreSQL in the exact statement shape of the pgsql output.
//
// Semantics follow the Fluent Bit sources: filters apply in order to records whose tag matches; grep `Regex`
// rules must all match (a missing key does not match), any `Exclude` match drops; rewrite_tag takes the first
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
import { FLUENT_BIT_ROOT } from './load-config.js';
import { type BuiltinMultilineParser, type TailRecord, isBuiltinMultilineParser, readTailRecords } from './builtin-multiline.js';
import { type RecordPath, parseRecordAccessor, readPath } from './record-accessor.js';

export type FluentRecord = Readonly<Record<string, unknown>>;

export interface PodMetadata {
  readonly podId: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly host: string;
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
  /** Clock for lines no multiline parser recognizes (Fluent Bit stamps them with the read time). */
  readonly now?: () => number;
}

export interface DeliveredRecord {
  readonly output: string;
  readonly plugin: string;
  readonly tag: string;
  readonly record: FluentRecord;
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
  readLogFile(path: string, content: Buffer): PipelineResult;
  readonly outputs: readonly OutputDefinition[];
  readonly rewriteRules: readonly RewriteRuleDefinition[];
  /** The expanded configuration the model runs. */
  readonly config: ClassicConfig;
}

interface RecordInFlight {
  readonly tag: string;
  readonly record: FluentRecord;
  readonly time: number;
  readonly sourceLines: readonly number[];
}

type FilterStep = (item: RecordInFlight) => { readonly pass: readonly RecordInFlight[]; readonly reemit: readonly RecordInFlight[] };

interface Filter {
  readonly alias: string;
  readonly match: (tag: string) => boolean;
  readonly apply: FilterStep;
}

const MAX_REEMIT_DEPTH = 4; // a rewrite loop (new tag matched by the same rewrite_tag) is a config error

export function createPipeline(options: PipelineOptions): FluentBitPipeline {
  const config = expandEnvironment(options.config, options.env);
  const parsers = options.parsers;
  const now = options.now ?? (() => Date.now() / 1000);

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
  if (property(input, 'Parser') !== undefined) throw new ClassicConfigError(`${config.source}: tail Parser is not modelled; use multiline.parser`);

  // Relative script paths resolve against the configuration's directory, as in Fluent Bit.
  const configDirectory = join(FLUENT_BIT_ROOT, '..', dirname(config.source));
  const filters = sectionsOf(config, 'FILTER').map((section, index) => buildFilter(section, index, parsers, options.podMetadata, configDirectory));
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

  const route = (item: RecordInFlight, depth: number, delivered: DeliveredRecord[], dropped: DroppedRecord[]): void => {
    if (depth > MAX_REEMIT_DEPTH) throw new ClassicConfigError(`rewrite_tag loop for tag ${item.tag}`);
    let batch: RecordInFlight[] = [item];
    for (const filter of filters) {
      const next: RecordInFlight[] = [];
      for (const current of batch) {
        if (!filter.match(current.tag)) {
          next.push(current);
          continue;
        }
        const result = filter.apply(current);
        next.push(...result.pass);
        for (const emitted of result.reemit) route(emitted, depth + 1, delivered, dropped);
        if (result.pass.length === 0 && result.reemit.length === 0) {
          dropped.push({ stage: `filter ${filter.alias}`, tag: current.tag, record: current.record, sourceLines: current.sourceLines });
        }
      }
      batch = next;
    }
    for (const current of batch) {
      const targets = outputs.filter((o) => o.match(current.tag));
      if (targets.length === 0) dropped.push({ stage: 'routing', tag: current.tag, record: current.record, sourceLines: current.sourceLines });
      for (const output of targets) {
        delivered.push({ output: output.alias, plugin: output.plugin, tag: current.tag, record: current.record, time: current.time, sourceLines: current.sourceLines });
      }
    }
  };

  return {
    config,
    outputs,
    rewriteRules,
    watches: (path) => pathGlob.test(path),
    readLogFile(path, content) {
      if (!pathGlob.test(path)) return { delivered: [], dropped: [] };
      const tag = expandTailTag(tagTemplate, path);
      const delivered: DeliveredRecord[] = [];
      const dropped: DroppedRecord[] = [];
      const records: TailRecord[] = readTailRecords(content, multiline as BuiltinMultilineParser[], now);
      for (const r of records) route({ tag, record: r.fields, time: r.time, sourceLines: r.sourceLines }, 0, delivered, dropped);
      return { delivered, dropped };
    },
  };
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

function buildFilter(
  section: ConfigSection,
  index: number,
  parsers: ClassicConfig,
  podMetadata: PipelineOptions['podMetadata'],
  configDirectory: string,
): Filter {
  const name = requiredProperty(section, 'Name');
  const alias = property(section, 'Alias') ?? `${name}.${index}`;
  const matchText = property(section, 'Match');
  const matchRegex = property(section, 'Match_Regex');
  if ((matchText === undefined) === (matchRegex === undefined)) {
    throw new ClassicConfigError(`[FILTER] ${alias} needs exactly one of Match and Match_Regex`);
  }
  const regex = matchText !== undefined ? globToRegExp(matchText, true) : new RegExp(matchRegex!);
  const match = (tag: string): boolean => regex.test(tag);
  const keep = (item: RecordInFlight) => ({ pass: [item], reemit: [] });
  const drop = () => ({ pass: [], reemit: [] });

  switch (name) {
    case 'parser': {
      const key = requiredProperty(section, 'Key_Name');
      const parserName = requiredProperty(section, 'Parser');
      const parse = parserFunction(parsers, parserName);
      const reserve = isOn(property(section, 'Reserve_Data'));
      const preserve = isOn(property(section, 'Preserve_Key'));
      return {
        alias,
        match,
        apply: (item) => {
          const value = item.record[key];
          const parsed = typeof value === 'string' ? parse(value) : undefined;
          if (!parsed) return keep(item);
          const rest = Object.fromEntries(Object.entries(item.record).filter(([k]) => preserve || k !== key));
          return keep({ ...item, record: reserve ? { ...parsed, ...withoutKeys(rest, Object.keys(parsed)) } : preserve ? { [key]: value, ...parsed } : parsed });
        },
      };
    }
    case 'grep': {
      const regexRules = properties(section, 'Regex').map(parseGrepRule);
      const excludeRules = properties(section, 'Exclude').map(parseGrepRule);
      if (property(section, 'Logical_Op') !== undefined) throw new ClassicConfigError(`[FILTER] ${alias}: Logical_Op is not modelled`);
      return {
        alias,
        match,
        apply: (item) => {
          const value = (rule: GrepRule): unknown => readPath(item.record, rule.path);
          const matches = (rule: GrepRule): boolean => {
            const v = value(rule);
            return typeof v === 'string' && rule.regex.test(v);
          };
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
          const meta = pod && podMetadata ? podMetadata(pod) : undefined;
          // The real filter leaves the record untouched when the API lookup fails.
          if (!pod || !meta) return keep(item);
          const kubernetes: Record<string, unknown> = {
            pod_name: pod.podName,
            namespace_name: pod.namespace,
            pod_id: meta.podId,
            ...(labels ? { labels: { ...meta.labels } } : {}),
            host: meta.host,
            container_name: pod.containerName,
            docker_id: pod.dockerId,
            container_image: meta.containerImage,
          };
          return keep({ ...item, record: { ...item.record, kubernetes } });
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
            const v = readPath(item.record, r.key);
            return typeof v === 'string' && r.regex.test(v);
          });
          if (!rule) return keep(item);
          const emitted = { ...item, tag: rule.newTag };
          return { pass: rule.keep ? [item] : [], reemit: [emitted] };
        },
      };
    }
    case 'lua': {
      // The Lua filter only rewrites values that PostgreSQL would reject (it never changes eventType, tags or
      // which records pass), so the model passes records through after checking that the script and its
      // function exist; the script itself runs under luajit in fluent-bit/test/sanitize-lua.test.ts.
      const script = requiredProperty(section, 'script');
      const call = requiredProperty(section, 'call');
      let source: string;
      try {
        source = readFileSync(join(configDirectory, script), 'utf8');
      } catch {
        throw new ClassicConfigError(`[FILTER] ${alias}: script ${script} not found next to the configuration`);
      }
      if (!new RegExp(`^function ${call}\\(`, 'm').test(source)) throw new ClassicConfigError(`[FILTER] ${alias}: ${script} defines no function ${call}`);
      return { alias, match, apply: keep };
    }
    default:
      throw new ClassicConfigError(`filter ${name} (${alias}) is not modelled`);
  }
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

function parserFunction(parsers: ClassicConfig, name: string): (text: string) => Record<string, unknown> | undefined {
  const section = sectionsOf(parsers, 'PARSER').find((s) => property(s, 'Name') === name);
  if (!section) throw new ClassicConfigError(`parser ${name} is not defined in ${parsers.source}`);
  const format = requiredProperty(section, 'Format');
  if (format !== 'json') throw new ClassicConfigError(`parser ${name}: format ${format} is not modelled`);
  if (property(section, 'Time_Key') !== undefined) throw new ClassicConfigError(`parser ${name}: Time_Key is not modelled`);
  return (text) => {
    try {
      const value: unknown = JSON.parse(text);
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
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

function withoutKeys(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
}
