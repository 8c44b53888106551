// Creates or updates the raw-event schema objects (the ingest pipeline, then the two index templates that name it)
// and says, per object, what it did. Idempotent: an object whose stored definition already matches is left alone,
// so `opensearch-setup` can run on every deployment. Templates shape only indices created after them, so the
// settings that can change on an open index (RAW_INDEX_DYNAMIC_SETTINGS) are also set on the daily raw indices that
// already exist (today's included), and so are the replicas of the layout (OPENSEARCH_REPLICAS); the others (shards,
// default pipeline) wait for the next day's index.
import type { Client } from '@opensearch-project/opensearch';
import { isDeepStrictEqual } from 'node:util';
import { createHash } from 'node:crypto';
import { rawEventPipeline, rawEventPipelineName } from './raw-event-pipeline.js';
import { DEFAULT_INDEX_LAYOUT, type IndexLayout, replicaSettings } from './index-layout.js';
import { RAW_INDEX_DYNAMIC_SETTINGS, TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX, rawIndexPattern, rawIndexTemplate, rawTemplateName } from './raw-index-templates.js';

export type SchemaAction = 'created' | 'updated' | 'unchanged';

export interface SchemaObjectResult {
  readonly kind: 'ingest pipeline' | 'index template' | 'existing raw indices';
  readonly name: string;
  readonly action: SchemaAction;
}

export interface RawSchemaOptions {
  /** Prepended to every object and index name; tests use it to keep their indices apart. Production: ''. */
  readonly prefix?: string;
  /** Report what would change without changing anything. */
  readonly dryRun?: boolean;
  /** Shards and replicas of the raw indices (default 1 / 1). */
  readonly layout?: IndexLayout;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** A template's settings come back normalized (numbers as strings, flattened keys), so templates carry the hash of
 * their definition in `_meta` and are compared by it. */
function definitionHash(definition: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(definition))).digest('hex');
}

async function applyPipeline(client: Client, name: string, body: Record<string, unknown>, dryRun: boolean): Promise<SchemaAction> {
  const current = await client.transport.request({ method: 'GET', path: `/_ingest/pipeline/${encodeURIComponent(name)}` }, { ignore: [404] });
  const stored = current.statusCode === 404 ? undefined : (current.body as Record<string, unknown>)[name];
  // A pipeline is returned exactly as it was stored, so a structural comparison is exact.
  if (stored !== undefined && isDeepStrictEqual(canonical(stored), canonical(JSON.parse(JSON.stringify(body))))) return 'unchanged';
  if (!dryRun) await client.transport.request({ method: 'PUT', path: `/_ingest/pipeline/${encodeURIComponent(name)}`, body });
  return stored === undefined ? 'created' : 'updated';
}

async function applyTemplate(client: Client, name: string, definition: Record<string, unknown>, dryRun: boolean): Promise<SchemaAction> {
  const hash = definitionHash(definition);
  const body = { ...definition, _meta: { ...(definition['_meta'] as Record<string, unknown>), definition_sha256: hash } };
  const current = await client.transport.request({ method: 'GET', path: `/_index_template/${encodeURIComponent(name)}` }, { ignore: [404] });
  const templates = current.statusCode === 404 ? [] : ((current.body as { index_templates?: { index_template?: { _meta?: { definition_sha256?: unknown } } }[] }).index_templates ?? []);
  const stored = templates[0]?.index_template;
  if (stored?._meta?.definition_sha256 === hash) return 'unchanged';
  if (!dryRun) await client.transport.request({ method: 'PUT', path: `/_index_template/${encodeURIComponent(name)}`, body });
  return stored === undefined ? 'created' : 'updated';
}

/** `{ mapping: { depth: { limit: 1000 } } }` as flat settings: `{ 'index.mapping.depth.limit': '1000' }`. */
function flatSettings(value: unknown, path: string): [string, string][] {
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => flatSettings(v, `${path}.${k}`));
  return [[path, String(value)]];
}

/** Sets RAW_INDEX_DYNAMIC_SETTINGS and the replicas on the open indices of `pattern` that differ ('unchanged' when
 * none do or none exist). */
async function applyExistingIndexSettings(client: Client, pattern: string, layout: IndexLayout, dryRun: boolean): Promise<SchemaAction> {
  const wanted = flatSettings({ ...RAW_INDEX_DYNAMIC_SETTINGS, ...replicaSettings(layout) }, 'index');
  const current = await client.transport.request({ method: 'GET', path: `/${pattern}/_settings`, querystring: { flat_settings: 'true', expand_wildcards: 'open' } });
  const indices = Object.entries(current.body as Record<string, { settings: Record<string, unknown> }>);
  const stale = indices.filter(([, { settings }]) => wanted.some(([key, value]) => settings[key] !== value)).map(([name]) => name);
  if (stale.length === 0) return 'unchanged';
  if (!dryRun) {
    // Retention may delete some (ignore_unavailable) or all of them (404) in between.
    await client.transport.request(
      { method: 'PUT', path: `/${stale.map(encodeURIComponent).join(',')}/_settings`, querystring: { ignore_unavailable: 'true' }, body: Object.fromEntries(wanted) },
      { ignore: [404] },
    );
  }
  return 'updated';
}

export async function applyRawSchema(client: Client, options: RawSchemaOptions = {}): Promise<SchemaObjectResult[]> {
  const prefix = options.prefix ?? '';
  const dryRun = options.dryRun ?? false;
  const layout = options.layout ?? DEFAULT_INDEX_LAYOUT;
  const results: SchemaObjectResult[] = [];
  // The pipeline first: a template naming a missing default pipeline would make every raw write fail.
  const pipeline = rawEventPipelineName(prefix);
  results.push({ kind: 'ingest pipeline', name: pipeline, action: await applyPipeline(client, pipeline, rawEventPipeline(), dryRun) });
  for (const raw of [WORKFLOW_RAW_PREFIX, TASK_RAW_PREFIX] as const) {
    const name = rawTemplateName(raw, prefix);
    results.push({ kind: 'index template', name, action: await applyTemplate(client, name, rawIndexTemplate(raw, prefix, layout), dryRun) });
  }
  // Reported only when some existing index had to change (an upgrade): a fresh cluster has none.
  for (const raw of [WORKFLOW_RAW_PREFIX, TASK_RAW_PREFIX] as const) {
    const pattern = rawIndexPattern(raw, prefix);
    if ((await applyExistingIndexSettings(client, pattern, layout, dryRun)) === 'updated') results.push({ kind: 'existing raw indices', name: pattern, action: 'updated' });
  }
  return results;
}
