// `opensearch-setup`, the OpenSearch twin of the PostgreSQL migrator: every object of the backend, in the order it is
// created, each compared with what is stored, so a rerun changes nothing and a plan says what a run would do:
//   the raw ingest pipeline and index templates (applyRawSchema),
// every index with the shards and replicas of OPENSEARCH_SHARDS / OPENSEARCH_REPLICAS (index-layout.ts): a rerun with
//   other replicas changes the existing indices in place; shards cannot change on an existing index, so a rerun with
//   other shards applies them to new indices only and says so in a note on each existing one,
//   the normalized indices, the ingest-errors index, the normalizer's state index and the event store (their mappings
//   only grow additively, so an outdated index gets the new fields in place),
//   the two normalization jobs: entries of the normalizer's status document, which the normalizer process keeps
//   current once it runs. Setup never overwrites what a running normalizer wrote.
//   the retention rule (retention/retention-rule.ts): created from the horizons given (defaults 7 days / off); an
//   existing rule is changed only where a horizon is given explicitly, so an operator's edit of the document survives
//   reruns.
import type { Client } from '@opensearch-project/opensearch';
import { isDeepStrictEqual } from 'node:util';
import { type SchemaObjectResult, applyRawSchema } from '../apply-raw-schema.js';
import { eventStoreIndex } from '../event-store.js';
import { DEFAULT_INDEX_LAYOUT, type IndexLayout } from '../index-layout.js';
import { ingestErrorsIndex, normalizedIndexNames, normalizerStateIndex, taskExecutionsIndex, workflowInstancesIndex } from '../normalized-indices.js';
import { type JobStatus, type NormalizerStatus, STATUS_ID, readCheckpoint } from '../normalizer-checkpoint.js';
import { NORMALIZER_JOBS, type NormalizerJob } from '../normalizer-metrics.js';
import { DEFAULT_RETENTION_RULE, RETENTION_RULE_ID, type RetentionOverrides, type RetentionRule, readRetentionRule, ruleWithOverrides, writeRetentionRule } from '../retention/retention-rule.js';

/** What a run did to an object; in a plan, what a run would do. */
export type SetupAction = 'created' | 'updated' | 'unchanged';
export type SetupObjectKind = SchemaObjectResult['kind'] | 'index' | 'normalization job' | 'retention rule';

/** One object of the setup, as migrate() reports one migration. */
export interface SetupStepResult {
  readonly kind: SetupObjectKind;
  readonly name: string;
  readonly action: SetupAction;
  /** What the operator should know beyond the action (an index whose shard count differs from the layout's). */
  readonly note?: string;
}

export interface OpenSearchSetupOptions {
  /** Prepended to every object name; tests and benchmarks on a shared node only. Production: ''. */
  readonly prefix?: string;
  /** Horizons set explicitly (retentionFromEnv); unset ones keep the stored rule or the default. */
  readonly retention?: RetentionOverrides;
  /** Shards and replicas (indexLayoutFromEnv); default 1 / 1. */
  readonly layout?: IndexLayout;
  /** Called as each object is done, so progress shows while a slow cluster works. */
  readonly onStep?: (step: SetupStepResult) => void;
}

// OpenSearch returns mapping and settings scalars in its own spelling (`dynamic: "false"`, numbers as strings).
function asText(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asText);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asText(v)]));
  return typeof value === 'boolean' || typeof value === 'number' ? String(value) : value;
}

/** True when everything `wanted` says is in `stored` (stored may hold more, e.g. fields of a newer release). */
function covers(stored: unknown, wanted: unknown): boolean {
  if (wanted !== null && typeof wanted === 'object' && !Array.isArray(wanted)) {
    if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return false;
    return Object.entries(wanted).every(([k, v]) => covers((stored as Record<string, unknown>)[k], v));
  }
  return isDeepStrictEqual(asText(stored), asText(wanted));
}

// Shards are fixed at creation; an operator may have changed them deliberately, and setup cannot.
const STATIC_SETTINGS = new Set(['number_of_shards']);

function dynamicSettings(definition: Record<string, unknown>): Record<string, unknown> {
  const index = ((definition['settings'] as { index?: Record<string, unknown> } | undefined)?.index ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(index).filter(([k]) => !STATIC_SETTINGS.has(k)));
}

function wantedShards(definition: Record<string, unknown>): unknown {
  return ((definition['settings'] as { index?: Record<string, unknown> } | undefined)?.index ?? {})['number_of_shards'];
}

/** The note of an existing index whose shard count is not the layout's (shards are fixed at creation). */
function shardNote(stored: unknown, wanted: unknown): string | undefined {
  if (stored === undefined || wanted === undefined || String(stored) === String(wanted)) return undefined;
  return `has ${String(stored)} shard(s), not ${String(wanted)}: shards cannot change on an existing index; reindex to change them (docs/opensearch.md, "Shards and replicas")`;
}

async function applyIndex(client: Client, name: string, definition: Record<string, unknown>, dryRun: boolean): Promise<{ action: SetupAction; note?: string }> {
  const path = `/${encodeURIComponent(name)}`;
  const current = await client.transport.request({ method: 'GET', path, querystring: { flat_settings: 'false' } }, { ignore: [404] });
  if (current.statusCode === 404) {
    if (dryRun) return { action: 'created' };
    const created = await client.transport.request({ method: 'PUT', path, body: definition }, { ignore: [400] });
    // A normalizer starting at the same moment may have created it first: then it has this very definition.
    const error = (created.body as { error?: { type?: string } }).error;
    if (created.statusCode === 400 && error?.type !== 'resource_already_exists_exception') {
      throw new Error(`creating index ${name} failed: ${JSON.stringify(created.body)}`);
    }
    return { action: created.statusCode === 400 ? 'unchanged' : 'created' };
  }
  const stored = (current.body as Record<string, { mappings?: unknown; settings?: { index?: { number_of_shards?: unknown } } }>)[name];
  const note = shardNote(stored?.settings?.index?.number_of_shards, wantedShards(definition));
  const noted = (action: SetupAction): { action: SetupAction; note?: string } => (note === undefined ? { action } : { action, note });
  const wantedMappings = definition['mappings'];
  const wantedSettings = dynamicSettings(definition);
  const mappingsCurrent = covers(stored?.mappings, wantedMappings);
  const settingsCurrent = covers(stored?.settings?.index, wantedSettings);
  if (mappingsCurrent && settingsCurrent) return noted('unchanged');
  if (!dryRun) {
    if (!mappingsCurrent) await client.transport.request({ method: 'PUT', path: `${path}/_mapping`, body: wantedMappings as Record<string, unknown> });
    if (!settingsCurrent) await client.transport.request({ method: 'PUT', path: `${path}/_settings`, body: { index: wantedSettings } });
  }
  return noted('updated');
}

/** The index definitions setup manages, by name, in order. */
export function managedIndices(prefix: string, layout: IndexLayout = DEFAULT_INDEX_LAYOUT): [string, Record<string, unknown>][] {
  const names = normalizedIndexNames(prefix);
  return [
    [names.workflowInstances, workflowInstancesIndex(layout)],
    [names.taskExecutions, taskExecutionsIndex(layout)],
    [names.ingestErrors, ingestErrorsIndex(layout)],
    [names.normalizerState, normalizerStateIndex(layout)],
    [names.eventStore, eventStoreIndex(layout)],
  ];
}

/** A job as setup registers it: started, waiting for the normalizer process to run its first cycle. */
export function registeredJob(): JobStatus {
  return { state: 'started', documents_written: 0, documents_deleted: 0, last_cycle_ms: null, last_success_at_ms: null, last_error: null };
}

interface StoredStatus {
  readonly seqNo: number;
  readonly primaryTerm: number;
  readonly jobs: Readonly<Record<string, unknown>>;
}

async function readStoredStatus(client: Client, index: string): Promise<StoredStatus | undefined> {
  const response = await client.transport.request({ method: 'GET', path: `/${encodeURIComponent(index)}/_doc/${STATUS_ID}` }, { ignore: [404] });
  if (response.statusCode === 404) return undefined;
  const body = response.body as { _seq_no: number; _primary_term: number; _source?: { jobs?: Record<string, unknown> } };
  return { seqNo: body._seq_no, primaryTerm: body._primary_term, jobs: body._source?.jobs ?? {} };
}

/**
 * Registers the two jobs in the status document: creates it when missing, adds a missing job to it otherwise.
 * Both writes are conditional (create / if_seq_no), so a normalizer publishing its status meanwhile wins.
 */
async function applyJobs(client: Client, index: string, dryRun: boolean): Promise<SetupStepResult[]> {
  const stored = await readStoredStatus(client, index);
  const missing = NORMALIZER_JOBS.filter((job) => stored === undefined || stored.jobs[job] === undefined);
  const results = NORMALIZER_JOBS.map((job): SetupStepResult => ({ kind: 'normalization job', name: job, action: missing.includes(job) ? 'created' : 'unchanged' }));
  if (dryRun || missing.length === 0) return results;
  const jobs = Object.fromEntries(missing.map((job) => [job, registeredJob()])) as Record<NormalizerJob, JobStatus>;
  const path = `/${encodeURIComponent(index)}/_doc/${STATUS_ID}`;
  let conflict: boolean;
  if (stored === undefined) {
    const checkpoint = await readCheckpoint(client, index);
    const status: NormalizerStatus = {
      holder: '',
      checkpoint_ms: checkpoint.highWaterMs,
      lag_ms: null,
      raw_events_processed: 0,
      raw_events_rejected: 0,
      failed_cycles: 0,
      jobs,
      updated_at_ms: Date.now(),
    };
    const created = await client.transport.request(
      { method: 'PUT', path, querystring: { op_type: 'create', refresh: 'true' }, body: { kind: 'status', ...status } },
      { ignore: [409] },
    );
    conflict = created.statusCode === 409;
  } else {
    const updated = await client.transport.request(
      {
        method: 'POST',
        path: `/${encodeURIComponent(index)}/_update/${STATUS_ID}`,
        querystring: { if_seq_no: String(stored.seqNo), if_primary_term: String(stored.primaryTerm), refresh: 'true' },
        body: { doc: { jobs } },
      },
      { ignore: [409] },
    );
    conflict = updated.statusCode === 409;
  }
  if (!conflict) return results;
  // The normalizer wrote its status first; what it wrote is what counts.
  const now = await readStoredStatus(client, index);
  return NORMALIZER_JOBS.map((job): SetupStepResult => ({ kind: 'normalization job', name: job, action: now?.jobs[job] === undefined ? 'created' : 'unchanged' }));
}

/** The retention rule: created when missing, updated where the environment sets a horizon that differs. */
async function applyRetentionRule(client: Client, index: string, wanted: RetentionOverrides | undefined, dryRun: boolean): Promise<SetupStepResult> {
  const name = `${index}/_doc/${RETENTION_RULE_ID}`;
  let stored: RetentionRule | undefined;
  let broken = false;
  try {
    stored = await readRetentionRule(client, index);
  } catch {
    broken = true; // an operator's edit made it unreadable: rewritten from the environment and the defaults
  }
  const rule = ruleWithOverrides(stored ?? DEFAULT_RETENTION_RULE, wanted);
  const action: SetupAction = stored === undefined && !broken ? 'created' : broken || !isDeepStrictEqual(rule, stored) ? 'updated' : 'unchanged';
  if (!dryRun && action !== 'unchanged') await writeRetentionRule(client, index, rule);
  return { kind: 'retention rule', name, action };
}

async function setup(client: Client, options: OpenSearchSetupOptions, dryRun: boolean): Promise<SetupStepResult[]> {
  const prefix = options.prefix ?? '';
  const results: SetupStepResult[] = [];
  const report = (result: SetupStepResult): void => {
    results.push(result);
    options.onStep?.(result);
  };
  const layout = options.layout ?? DEFAULT_INDEX_LAYOUT;
  for (const result of await applyRawSchema(client, { prefix, dryRun, layout })) report(result);
  for (const [name, definition] of managedIndices(prefix, layout)) {
    report({ kind: 'index', name, ...(await applyIndex(client, name, definition, dryRun)) });
  }
  const stateIndex = normalizedIndexNames(prefix).normalizerState;
  for (const result of await applyJobs(client, stateIndex, dryRun)) report(result);
  // The state index exists now (or, in a plan, would): the rule is one of its documents.
  const stateExists = (await client.transport.request({ method: 'HEAD', path: `/${encodeURIComponent(stateIndex)}` }, { ignore: [404] })).statusCode !== 404;
  report(stateExists ? await applyRetentionRule(client, stateIndex, options.retention, dryRun) : { kind: 'retention rule', name: `${stateIndex}/_doc/${RETENTION_RULE_ID}`, action: 'created' });
  return results;
}

/** Creates or updates every object in order; one result per object. */
export function applyOpenSearchSetup(client: Client, options: OpenSearchSetupOptions = {}): Promise<SetupStepResult[]> {
  return setup(client, options, false);
}

/** What applyOpenSearchSetup would do, object by object; changes nothing. */
export function planOpenSearchSetup(client: Client, options: OpenSearchSetupOptions = {}): Promise<SetupStepResult[]> {
  return setup(client, options, true);
}
