// The statistics fields above the Reader: what the scoped Reader asks the backend (a subject's statistics count only
// its namespaces' runs, a task filter narrowed through the task's run), what they cost, and the argument rules.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { accessOf } from '../src/auth/access.js';
import { parseAccessRules } from '../src/auth/access-rules.js';
import { scopedReader } from '../src/auth/scoped-reader.js';
import { buildSchema } from '../src/graphql-server.js';
import { operationCost } from '../src/query-cost.js';
import type { Reader } from '../src/reader.js';
import { loadSchemaSdl } from '../src/schema-sdl.js';
import { intervalsBetween } from '../src/stats-arguments.js';
import { nearestRank, summarizeSortedDurations } from '../src/stats.js';
import { RecordingReader, testConfig } from '@workflow-index/testkit';

const { rules } = parseAccessRules({ rules: [{ group: 'shop', namespaces: ['org.acme.shop'], payloads: false }] }, 'test');
const shop = { kind: 'string', field: 'namespace', predicate: { op: 'in', values: ['org.acme.shop'] } };

describe('statistics through the scoped Reader', () => {
  it('narrows workflowStats and topErrors to the subject runs, topFailingTasks through the task run', async () => {
    const reader = new RecordingReader();
    const scoped = scopedReader(reader as Reader, accessOf(['shop'], rules));
    await scoped.workflowStats({ filter: null, interval: 'HOUR', from: '2026-05-12T00:00:00.000000Z', to: '2026-05-13T00:00:00.000000Z', groupBy: [], maxBuckets: 10 });
    await scoped.topErrors({ filter: null, limit: 5 });
    const byName = { kind: 'string', field: 'taskName', predicate: { op: 'eq', value: 't' } } as const;
    await scoped.topFailingTasks({ filter: byName, limit: 5 });
    expect(reader.callsOf('workflowStats')[0]?.query.filter).toEqual(shop);
    expect(reader.callsOf('topErrors')[0]?.query.filter).toEqual(shop);
    expect(reader.callsOf('topFailingTasks')[0]?.query.filter).toEqual({ kind: 'and', nodes: [{ kind: 'instance', node: shop }, byName] });
  });
});

describe('statistics in the query cost', () => {
  const config = testConfig();
  const schema = buildSchema(loadSchemaSdl(), config);
  const cost = (query: string): number => operationCost(schema, parse(query), undefined, {}, config.graphql).total;

  it('a statistic costs a count (COUNT_EXACT_LIMIT / 100) plus one row per interval or per entry of its limit, and workflowStats its range', () => {
    expect(cost('{ workflowStats(interval: HOUR, from: "2026-05-12T00:00:00Z", to: "2026-05-13T00:00:00Z") { start } }')).toBe(100 + 24 + 1000);
    expect(cost('{ workflowStats(interval: DAY, from: "2026-04-01T00:00:00Z", to: "2026-05-01T00:00:00Z") { start } }')).toBe(100 + 30 + 30 * 1000);
    expect(cost('{ workflowStats(interval: MINUTE, from: "2026-05-12T00:00:30Z", to: "2026-05-12T00:02:00.000001Z") { start } }')).toBe(100 + 3 + 2);
    expect(cost('{ topErrors { count } topFailingTasks(limit: 50) { count } }')).toBe(100 + 10 + 100 + 50);
    expect(cost('{ a: topErrors(limit: 100) { count } b: topErrors(limit: 100) { count } }')).toBe(2 * 200);
  });
});

describe('statistics rules', () => {
  it('nearest rank is ceil(pct·n / 100) in integers, including where p·n in floating point is not exact', () => {
    for (let n = 1; n <= 2000; n++) for (const pct of [50, 90, 99]) expect(nearestRank(pct, n)).toBe(Math.ceil((pct * n) / 100));
    expect(nearestRank(90, 30)).toBe(27);
  });

  it('summaries of 0, 1, 2, 3 and 100 sorted durations', () => {
    expect(summarizeSortedDurations([])).toEqual({ count: 0, p50: null, p90: null, p99: null, max: null });
    expect(summarizeSortedDurations([7])).toEqual({ count: 1, p50: 7, p90: 7, p99: 7, max: 7 });
    expect(summarizeSortedDurations([1, 3])).toEqual({ count: 2, p50: 1, p90: 3, p99: 3, max: 3 });
    expect(summarizeSortedDurations([1, 2, 3])).toEqual({ count: 3, p50: 2, p90: 3, p99: 3, max: 3 });
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(summarizeSortedDurations(hundred)).toEqual({ count: 100, p50: 50, p90: 90, p99: 99, max: 100 });
  });

  it('intervals of a range count the floored first one and a partial last one', () => {
    expect(intervalsBetween(0n, 3_600_000_000n, 'HOUR')).toBe(1);
    expect(intervalsBetween(1n, 3_600_000_001n, 'HOUR')).toBe(2);
    expect(intervalsBetween(0n, 86_400_000_000n * 7n, 'MINUTE')).toBe(10_080);
  });
});
