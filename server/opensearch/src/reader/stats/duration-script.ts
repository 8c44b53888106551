// The exact duration summary of an aggregation bucket: a scripted_metric that collects the bucket's finished durations
// (whole µs from doc values) on each shard, and in the reduce phase sorts all of them and reads the nearest ranks
// ceil(pct·n / 100) in integer arithmetic, as PostgreSQL and the oracle do. OpenSearch's own `percentiles` are
// estimates (TDigest / HDR); this is exact by construction: it is the definition, applied to every value. Its memory
// is the values of one request (8 bytes and a box each), so opensearch-stats.ts uses it only for requests of at most
// COLLECT_LIMIT finished runs (a day of 1,000,000 runs spread over 30 days: 28,000) and ranks larger ones.
import { STATS_PERCENTILES } from '@workflow-index/core';
import type { DurationSummaryRecord } from '@workflow-index/core';

const PICKS = Object.entries(STATS_PERCENTILES)
  .map(([name, pct]) => `r.put('${name}', all.get((int) ((n * ${pct}L + 99L) / 100L) - 1));`)
  .join(' ');

export const DURATION_SCRIPT = Object.freeze({
  scripted_metric: {
    init_script: { source: 'state.d = new ArrayList();' },
    map_script: { source: "if (doc['end_time_us'].size() > 0 && doc['duration_us'].size() > 0) { state.d.add(doc['duration_us'].value); }" },
    combine_script: { source: 'return state.d;' },
    reduce_script: {
      source:
        'ArrayList all = new ArrayList(); for (s in states) { if (s != null) { all.addAll(s); } } Collections.sort(all); ' +
        "long n = all.size(); Map r = new HashMap(); r.put('n', n); " +
        `if (n > 0) { ${PICKS} r.put('max', all.get((int) n - 1)); } return r;`,
    },
  },
});

interface ScriptResult {
  readonly value: { n: number; p50?: number; p90?: number; p99?: number; max?: number } | null;
}

export function durationSummaryOf(result: ScriptResult | undefined): DurationSummaryRecord {
  const v = result?.value ?? null;
  if (v === null || v.n === 0) return { count: 0, p50: null, p90: null, p99: null, max: null };
  return { count: v.n, p50: v.p50 ?? null, p90: v.p90 ?? null, p99: v.p99 ?? null, max: v.max ?? null };
}
