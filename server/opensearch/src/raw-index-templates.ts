// Index templates for the daily raw indices Fluent Bit writes (Logstash_Format, CONTRACT §7). Nothing of the
// event itself is mapped (`dynamic: false`): the event stays in `_source` as sent, so no producer value can make
// a bulk item fail on a mapping conflict (a string `timestamp` after a numeric one, an object `instanceId` in a
// keyword field). What the normalizer searches on is derived by the ingest pipeline under `wi` and mapped here.
import { DEFAULT_INDEX_LAYOUT, type IndexLayout, layoutSettings } from './index-layout.js';
import { rawEventPipelineName } from './raw-event-pipeline.js';

export const WORKFLOW_RAW_PREFIX = 'workflow-instance-events-raw';
export const TASK_RAW_PREFIX = 'task-execution-events-raw';
export type RawPrefix = typeof WORKFLOW_RAW_PREFIX | typeof TASK_RAW_PREFIX;

/**
 * Settings of the raw indices that can change on an open index, so `applyRawSchema` also sets them on the daily
 * indices that already exist (a template shapes only indices created after it).
 * - mapping.depth.limit: the default 20 refuses a document with a top-level array nested deeper than 20 (even
 *   unmapped), and Fluent Bit would retry its chunk for ever. 1000 is the parser's own nesting limit
 *   (StreamReadConstraints maxNestingDepth), and repair-line.lua turns every container deeper than 1000 into a
 *   string: so every line is accepted (fluent-bit/test/opensearch-limits.test.ts).
 */
export const RAW_INDEX_DYNAMIC_SETTINGS = { mapping: { depth: { limit: 1000 } } } as const;

export function rawTemplateName(raw: RawPrefix, prefix = ''): string {
  return `${prefix}${raw}-template`;
}

export function rawIndexPattern(raw: RawPrefix, prefix = ''): string {
  return `${prefix}${raw}-*`;
}

export function rawIndexTemplate(raw: RawPrefix, prefix = '', layout: IndexLayout = DEFAULT_INDEX_LAYOUT): Record<string, unknown> {
  return {
    index_patterns: [rawIndexPattern(raw, prefix)],
    priority: 100,
    _meta: { managed_by: 'workflow-index', description: `raw ${raw === WORKFLOW_RAW_PREFIX ? 'workflow' : 'task'} events as Fluent Bit sends them` },
    template: {
      settings: {
        index: {
          // Replicas as the cluster has nodes for, up to the layout's (index-layout.ts).
          ...layoutSettings(layout),
          default_pipeline: rawEventPipelineName(prefix),
          ...RAW_INDEX_DYNAMIC_SETTINGS,
        },
      },
      mappings: {
        dynamic: false,
        properties: {
          wi: {
            properties: {
              instance_id: { type: 'keyword' },
              event_type: { type: 'keyword' },
              timestamp_us: { type: 'long' },
              start_time_us: { type: 'long' },
              end_time_us: { type: 'long' },
              last_update_time_us: { type: 'long' },
              ingest_time: { type: 'date' },
              errors: { type: 'keyword', ignore_above: 4096 },
              times_deferred: { type: 'keyword', ignore_above: 1024 },
            },
          },
        },
      },
    },
  };
}
