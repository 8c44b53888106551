// OPENSEARCH_SHARDS / OPENSEARCH_REPLICAS as opensearch-setup reads them, and the settings every index gets from them
// (the setup against a real node: init-job/test/opensearch-setup.test.ts; on a cluster: cluster.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventStoreIndex } from '../src/event-store.js';
import { DEFAULT_INDEX_LAYOUT, indexLayoutFromEnv } from '../src/index-layout.js';
import { ingestErrorsIndex, normalizerStateIndex, taskExecutionsIndex, workflowInstancesIndex } from '../src/normalized-indices.js';
import { WORKFLOW_RAW_PREFIX, rawIndexTemplate } from '../src/raw-index-templates.js';

const indexSettings = (definition: Record<string, unknown>): Record<string, unknown> => (definition['settings'] as { index: Record<string, unknown> }).index;

describe('index layout', () => {
  it('defaults to one shard and up to one replica: the settings every index had before', () => {
    expect(indexLayoutFromEnv({})).toEqual({ layout: DEFAULT_INDEX_LAYOUT, problems: [] });
    expect(DEFAULT_INDEX_LAYOUT).toEqual({ shards: 1, replicas: 1 });
    for (const definition of [workflowInstancesIndex(), taskExecutionsIndex(), ingestErrorsIndex(), eventStoreIndex(), normalizerStateIndex()]) {
      expect(indexSettings(definition)).toMatchObject({ number_of_shards: 1, auto_expand_replicas: '0-1' });
    }
  });

  it('accepts exactly the whole numbers in range, and reports each wrong value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -5, max: 1100 }).map(String), fc.string({ maxLength: 6 })), fc.oneof(fc.integer({ min: -5, max: 20 }).map(String), fc.string({ maxLength: 4 })), (shards, replicas) => {
        const { layout, problems } = indexLayoutFromEnv({ OPENSEARCH_SHARDS: shards, OPENSEARCH_REPLICAS: replicas });
        const shardsOk = shards.trim() === '' || (/^\d+$/.test(shards.trim()) && Number(shards) >= 1 && Number(shards) <= 1024);
        const replicasOk = replicas.trim() === '' || (/^\d+$/.test(replicas.trim()) && Number(replicas) <= 16);
        expect(problems.some((p) => p.startsWith('OPENSEARCH_SHARDS'))).toBe(!shardsOk);
        expect(problems.some((p) => p.startsWith('OPENSEARCH_REPLICAS'))).toBe(!replicasOk);
        expect(layout.shards).toBe(shardsOk && shards.trim() !== '' ? Number(shards) : 1);
        expect(layout.replicas).toBe(replicasOk && replicas.trim() !== '' ? Number(replicas) : 1);
      }),
    );
  });

  it('gives the layout to the templates and the indices; the state index keeps one shard', () => {
    const layout = { shards: 3, replicas: 2 };
    for (const definition of [workflowInstancesIndex(layout), taskExecutionsIndex(layout), ingestErrorsIndex(layout), eventStoreIndex(layout)]) {
      expect(indexSettings(definition)).toMatchObject({ number_of_shards: 3, auto_expand_replicas: '0-2' });
    }
    expect(indexSettings(normalizerStateIndex(layout))).toEqual({ number_of_shards: 1, auto_expand_replicas: '0-2' });
    const template = rawIndexTemplate(WORKFLOW_RAW_PREFIX, '', layout) as { template: { settings: { index: Record<string, unknown> } } };
    expect(template.template.settings.index).toMatchObject({ number_of_shards: 3, auto_expand_replicas: '0-2' });
  });
});
