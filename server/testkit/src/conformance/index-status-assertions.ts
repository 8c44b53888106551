// indexStatus: how fresh the answers are, from the backend's ingestion statistics (every backend has them).
import { expect, it } from 'vitest';
import { CONFORMANCE_EVENTS, PLACEHOLDER_INSTANCE_IDS } from './conformance-events.js';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES } from './expected-data.js';
import { microsOf } from './timestamps.js';

export function describeIndexStatus(client: GraphQLClient): void {
  it('newest event time, lag on the server clock, raw events, ingest errors, placeholders, backend', async () => {
    const before = Date.now();
    const data = await client.data('{ indexStatus { backend newestEventTime lagSeconds rawEvents ingestErrors placeholders } }');
    const after = Date.now();
    const status = data['indexStatus'] as { backend: string; newestEventTime: string; lagSeconds: number; rawEvents: number; ingestErrors: number; placeholders: number };
    // the newest workflow event: the last paging run's start (2026-06-01 + 34 s); placeholders are older
    const newest = ALL_INSTANCES.map((i) => i.lastUpdate ?? '').reduce((a, b) => (a === '' || (b !== '' && microsOf(b) > microsOf(a)) ? b : a), '');
    expect(newest).toBe('2026-06-01T00:00:34Z');
    expect(status.newestEventTime).toBe(newest);
    const newestSeconds = Number(microsOf(newest)) / 1e6;
    // measured on the server's clock between the request's start and end (microsecond precision)
    expect(status.lagSeconds).toBeGreaterThanOrEqual(before / 1000 - newestSeconds - 0.001);
    expect(status.lagSeconds).toBeLessThanOrEqual(after / 1000 - newestSeconds + 0.001);
    expect(status.rawEvents).toBe(CONFORMANCE_EVENTS.length);
    expect(status.ingestErrors).toBe(0);
    expect(status.placeholders).toBe(PLACEHOLDER_INSTANCE_IDS.length);
    expect(['postgresql', 'opensearch']).toContain(status.backend);
  });
}
