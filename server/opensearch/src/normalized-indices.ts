// The normalized indices (CONTRACT §7) and the normalizer's own indices, with explicit mappings (`dynamic:
// strict`: a document that does not match the shape is a bug, not a new field). Strings are `keyword` (sorted by
// UTF-8 bytes, i.e. code point, as PostgreSQL's COLLATE "C"); times are `long` epoch microseconds (exact; a `date`
// holds milliseconds only) with the served ISO text beside them; payloads are stored, not indexed (`enabled: false`
// accepts any JSON value), as the object and as PostgreSQL's jsonb text.
import type { Client } from '@opensearch-project/opensearch';
import { EVENT_STORE_INDEX, eventStoreIndex } from './event-store.js';
import { DEFAULT_INDEX_LAYOUT, type IndexLayout, layoutSettings, replicaSettings } from './index-layout.js';
import { KEYWORD_LIMIT } from './long-detail.js';

export const WORKFLOW_INSTANCES_INDEX = 'workflow-instances';
export const TASK_EXECUTIONS_INDEX = 'task-executions';
export const INGEST_ERRORS_INDEX = 'workflow-index-ingest-errors';
/** Checkpoint, lease and status of the normalization jobs. */
export const NORMALIZER_STATE_INDEX = 'workflow-index-normalizer';

export interface NormalizedIndexNames {
  readonly workflowInstances: string;
  readonly taskExecutions: string;
  readonly ingestErrors: string;
  readonly normalizerState: string;
  /** Every accepted event once (event-store.ts): what instances are recomputed from. */
  readonly eventStore: string;
}

/** Index names under an optional prefix (tests keep their indices apart with it; production: ''). */
export function normalizedIndexNames(prefix = ''): NormalizedIndexNames {
  return {
    workflowInstances: `${prefix}${WORKFLOW_INSTANCES_INDEX}`,
    taskExecutions: `${prefix}${TASK_EXECUTIONS_INDEX}`,
    ingestErrors: `${prefix}${INGEST_ERRORS_INDEX}`,
    normalizerState: `${prefix}${NORMALIZER_STATE_INDEX}`,
    eventStore: `${prefix}${EVENT_STORE_INDEX}`,
  };
}

const keyword = { type: 'keyword' } as const;
// error.detail has no length bound (PostgreSQL accepts any): longer values are kept in _source, not indexed, and
// marked with their head indexed beside them (long-detail.ts).
const longKeyword = { type: 'keyword', ignore_above: KEYWORD_LIMIT } as const;
const micros = { type: 'long' } as const;
const storedText = { type: 'keyword', index: false, doc_values: false } as const;
const storedOnly = { type: 'object', enabled: false } as const;
// A leaf beyond the keyword limit is not indexed (the reader then checks the payload text).
/** A keyword searched but never sorted or aggregated on (no doc values): payload leaves, long-detail head and chunks. */
const searchOnlyKeyword = { type: 'keyword', ignore_above: KEYWORD_LIMIT, doc_values: false } as const;
const leaves = searchOnlyKeyword;

const errorMapping = {
  properties: {
    type: keyword,
    title: keyword,
    detail: longKeyword,
    status: { type: 'integer' },
    instance: keyword,
    detail_long: { type: 'boolean' },
    detail_head: searchOnlyKeyword,
    detail_chunks: searchOnlyKeyword,
  },
} as const;

/** Settings of a normalized index with this layout (index-layout.ts). */
function settings(layout: IndexLayout): Record<string, unknown> {
  return { index: { ...layoutSettings(layout), refresh_interval: '1s' } };
}

/** The payload fields both document kinds carry (normalize-instance.ts payloadFields): stored object and jsonb text,
 * and the leaves the reader matches JSON filters on. */
const payloadProperties = {
  input: storedOnly,
  input_json: storedOnly,
  output: storedOnly,
  output_json: storedOnly,
  input_leaves: leaves,
  input_leaves_complete: { type: 'boolean' },
  output_leaves: leaves,
  output_leaves_complete: { type: 'boolean' },
  // JSON operators beyond eq (json-paths.ts): paths present, and numbers in an order-preserving text form.
  input_paths: leaves,
  input_numbers: leaves,
  input_paths_complete: { type: 'boolean' },
  output_paths: leaves,
  output_numbers: leaves,
  output_paths_complete: { type: 'boolean' },
};

export function workflowInstancesIndex(layout: IndexLayout = DEFAULT_INDEX_LAYOUT): Record<string, unknown> {
  return {
    settings: settings(layout),
    mappings: {
      dynamic: 'strict',
      _meta: { managed_by: 'workflow-index', job: 'workflow-instance-transform' },
      properties: {
        id: keyword,
        name: keyword,
        namespace: keyword,
        version: keyword,
        status: keyword,
        start_time_us: micros,
        end_time_us: micros,
        last_update_us: micros,
        duration_us: micros,
        start_time: storedText,
        end_time: storedText,
        last_update: storedText,
        ...payloadProperties,
        error: errorMapping,
        placeholder: { type: 'boolean' },
        // The run's task states (task-states.ts): `<status>/<task name>`, searched only.
        task_states: searchOnlyKeyword,
        task_states_complete: { type: 'boolean' },
        // When a normalizer cycle last wrote the run (epoch ms): what the server's live updates poll.
        changed_at_ms: { type: 'long' },
      },
    },
  };
}

export function taskExecutionsIndex(layout: IndexLayout = DEFAULT_INDEX_LAYOUT): Record<string, unknown> {
  return {
    settings: settings(layout),
    mappings: {
      dynamic: 'strict',
      _meta: { managed_by: 'workflow-index', job: 'task-execution-transform' },
      properties: {
        id: keyword,
        instance_id: keyword,
        workflow_name: keyword,
        workflow_namespace: keyword,
        workflow_version: keyword,
        task_position: keyword,
        task_name: keyword,
        status: keyword,
        start_time_us: micros,
        end_time_us: micros,
        duration_us: micros,
        start_time: storedText,
        end_time: storedText,
        ...payloadProperties,
        error: errorMapping,
        execution_index: { type: 'integer' },
        placeholder: { type: 'boolean' },
        // A superseded execution: its id disappeared from the run's latest computation. Kept as a small live document
        // (with `placeholder: true`, so never served) instead of deleted, so its external version stays and a stale
        // normalizer's older write of the id is refused for good (normalizer-recompute.ts, "Superseded executions").
        superseded: { type: 'boolean' },
      },
    },
  };
}

export function ingestErrorsIndex(layout: IndexLayout = DEFAULT_INDEX_LAYOUT): Record<string, unknown> {
  return {
    settings: settings(layout),
    mappings: {
      dynamic: 'strict',
      properties: {
        raw_index: keyword,
        raw_id: keyword,
        instance_id: keyword,
        event_type: keyword,
        reason: longKeyword,
        ingest_time: { type: 'date' },
        // The rejected raw event as read (lossless JSON text), so a run's event history shows it without reading raw
        // indices (which the server may not) and after raw retention deleted them. Records written before this
        // field existed have none.
        source: storedText,
      },
    },
  };
}

/** A handful of documents (checkpoint, lease, status, retention rule): one shard whatever the layout. */
export function normalizerStateIndex(layout: IndexLayout = DEFAULT_INDEX_LAYOUT): Record<string, unknown> {
  return {
    settings: { index: { number_of_shards: 1, ...replicaSettings(layout) } },
    mappings: { dynamic: false, properties: { kind: keyword, holder: keyword, expires_at_ms: { type: 'long' } } },
  };
}

export type IndexAction = 'created' | 'unchanged';

/**
 * Creates the missing indices. An existing one gets the fields this release adds (mappings here only ever grow
 * additively, and put-mapping of the same definition changes nothing), so a normalizer started before
 * `opensearch-setup` reran never writes a field its strict index refuses; a user without the mapping permission
 * (403) leaves that to opensearch-setup.
 */
export async function applyNormalizedIndices(client: Client, prefix = ''): Promise<{ name: string; action: IndexAction }[]> {
  const names = normalizedIndexNames(prefix);
  const wanted: [string, Record<string, unknown>][] = [
    [names.workflowInstances, workflowInstancesIndex()],
    [names.taskExecutions, taskExecutionsIndex()],
    [names.ingestErrors, ingestErrorsIndex()],
    [names.normalizerState, normalizerStateIndex()],
    [names.eventStore, eventStoreIndex()],
  ];
  const results: { name: string; action: IndexAction }[] = [];
  for (const [name, body] of wanted) {
    const response = await client.transport.request({ method: 'PUT', path: `/${encodeURIComponent(name)}`, body }, { ignore: [400, 403] });
    if (response.statusCode === 403) {
      // Least privilege: the normalizer's user may not create indices (opensearch-setup does); it may read them.
      const exists = await client.transport.request({ method: 'POST', path: `/${encodeURIComponent(name)}/_count` }, { ignore: [404] });
      if (exists.statusCode === 404) throw new Error(`index ${name} does not exist and this user may not create it: run init-job opensearch-setup`);
      results.push({ name, action: 'unchanged' });
      continue;
    }
    const error = (response.body as { error?: { type?: string } }).error;
    if (response.statusCode === 400 && error?.type !== 'resource_already_exists_exception') {
      throw new Error(`creating index ${name} failed: ${JSON.stringify(response.body)}`);
    }
    if (response.statusCode === 400) {
      const mapping = await client.transport.request({ method: 'PUT', path: `/${encodeURIComponent(name)}/_mapping`, body: body['mappings'] as Record<string, unknown> }, { ignore: [400, 403] });
      if (mapping.statusCode === 400) throw new Error(`index ${name} has a mapping this release cannot extend (run init-job opensearch-setup): ${JSON.stringify(mapping.body)}`);
    }
    results.push({ name, action: response.statusCode === 400 ? 'unchanged' : 'created' });
  }
  return results;
}
