// What a filter plugin of the model is: a step over one record in flight, and what it tells the pipeline (records
// passed on, re-emitted under a new tag, counted as dropped, held in the filter's state).
import type { ClassicConfig, ConfigSection } from '../classic-config.js';
import type { FluentBitVersion } from '../flb-json-parser.js';
import type { FluentMap } from '../fluent-value.js';
import type { LuaFunction } from '../lua-filter.js';
import type { PodMetadata, PodReference } from './kubernetes-filter.js';

export interface RecordInFlight {
  readonly tag: string;
  readonly record: FluentMap;
  readonly time: number;
  readonly sourceLines: readonly number[];
}

export interface FilterOutcome {
  readonly pass: readonly RecordInFlight[];
  readonly reemit: readonly RecordInFlight[];
  /** What the filter's drop counter adds (rewrite_tag counts a re-tag, lua counts -1). */
  readonly counted: number;
  /** Dropped by the join script but held in its state: not lost, so not reported as dropped. */
  readonly held?: boolean;
}

export type FilterStep = (item: RecordInFlight) => FilterOutcome;

/** A plugin's behaviour, built from its section. */
export interface FilterBehaviour {
  readonly apply: FilterStep;
  /** Source lines the filter holds in its state (the join script's parts). */
  readonly held?: () => number[];
}

export interface Filter extends FilterBehaviour {
  readonly alias: string;
  readonly match: (tag: string) => boolean;
}

export interface FilterContext {
  readonly parsers: ClassicConfig;
  readonly podMetadata: ((pod: PodReference) => PodMetadata | undefined) | undefined;
  readonly configDirectory: string;
  readonly version: FluentBitVersion;
  readonly luaScripts: Readonly<Record<string, () => LuaFunction>>;
}

/** Builds one plugin's behaviour from its [FILTER] section (`alias` names it in errors). */
export type FilterPlugin = (section: ConfigSection, alias: string, context: FilterContext) => FilterBehaviour;

export function keep(item: RecordInFlight): FilterOutcome {
  return { pass: [item], reemit: [], counted: 0 };
}

export function drop(): FilterOutcome {
  return { pass: [], reemit: [], counted: 1 };
}
