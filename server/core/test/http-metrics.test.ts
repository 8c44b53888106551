// http_server_requests_seconds with Micrometer's labels (method, uri, status, outcome), its _max, the readiness
// gauge, the ingest-error counter derived from the backend's running count, and instances by status.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MonotonicTotal } from '../src/monotonic-total.js';
import { get, postGraphQL, testApp } from '@workflow-index/testkit';
import { DEFAULT_STATS, RecordingReader } from '@workflow-index/testkit';

function series(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

describe('http_server_requests_seconds', () => {
  it('labels every request with method, the route as uri, status and outcome', async () => {
    const { app } = testApp();
    await postGraphQL(app, '{ getWorkflowInstances { id } }');
    await app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": ' }));
    await get(app, '/q/health/live/');
    await get(app, '/graphql');
    const text = await (await get(app, '/q/metrics')).text();
    expect(series(text, 'http_server_requests_seconds_count').sort()).toEqual([
      'http_server_requests_seconds_count{backend="test",method="GET",uri="/graphql",status="405",outcome="CLIENT_ERROR"} 1',
      'http_server_requests_seconds_count{backend="test",method="GET",uri="/q/health/live",status="200",outcome="SUCCESS"} 1',
      'http_server_requests_seconds_count{backend="test",method="POST",uri="/graphql",status="200",outcome="SUCCESS"} 1',
      'http_server_requests_seconds_count{backend="test",method="POST",uri="/graphql",status="400",outcome="CLIENT_ERROR"} 1',
    ]);
  });

  it('unknown paths collapse to uri NOT_FOUND: the raw path never becomes a label value', async () => {
    const { app } = testApp();
    await fc.assert(
      fc.asyncProperty(fc.webPath(), async (path) => {
        const url = new URL(`http://localhost${path.startsWith('/') ? path : `/${path}`}`);
        // `/` is the console (a route of its own).
        if (/^\/\/?$/.test(url.pathname) || url.pathname.startsWith('/q/') || url.pathname.startsWith('/graphql') || url.pathname.startsWith('/docs')) return;
        await get(app, url.pathname + url.search);
      }),
      { numRuns: 200 },
    );
    await get(app, '/not/a/route');
    const text = await (await get(app, '/q/metrics')).text();
    const unknown = series(text, 'http_server_requests_seconds_count').filter((l) => !/uri="\/q\/metrics"/.test(l));
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatch(/^http_server_requests_seconds_count\{backend="test",method="GET",uri="NOT_FOUND",status="404",outcome="CLIENT_ERROR"\} \d+$/);
    expect(text).not.toContain('/not/a/route');
  });

  it('an unknown method is `other`, not a new label value per method', async () => {
    const { app } = testApp();
    await app.fetch(new Request('http://localhost/q/health', { method: 'PROPFIND' }));
    const text = await (await get(app, '/q/metrics')).text();
    expect(series(text, 'http_server_requests_seconds_count')).toEqual([
      'http_server_requests_seconds_count{backend="test",method="other",uri="/q/health",status="405",outcome="CLIENT_ERROR"} 1',
    ]);
  });

  it('exports Micrometer\'s _max gauge beside the histogram', async () => {
    const { app } = testApp();
    await get(app, '/q/health/live');
    const text = await (await get(app, '/q/metrics')).text();
    expect(text).toContain('# TYPE http_server_requests_seconds_max gauge');
    const max = series(text, 'http_server_requests_seconds_max');
    expect(max).toHaveLength(1);
    const [, value] = /^http_server_requests_seconds_max\{method="GET",uri="\/q\/health\/live",status="200",outcome="SUCCESS",backend="test"\} (\S+)$/.exec(max[0]!) ?? [];
    const sum = /^http_server_requests_seconds_sum\{[^}]*uri="\/q\/health\/live"[^}]*\} (\S+)$/m.exec(text)?.[1];
    // One request: its max is its duration, the histogram's sum.
    expect(Number(value)).toBe(Number(sum));
  });
});

describe('workflow_index_ready', () => {
  it('0 before the first readiness probe, then the outcome of the last one (draining: 0)', async () => {
    const { app } = testApp();
    expect(series(await (await get(app, '/q/metrics')).text(), 'workflow_index_ready')).toEqual(['workflow_index_ready{backend="test"} 0']);
    expect((await get(app, '/q/health/ready')).status).toBe(200);
    expect(series(await (await get(app, '/q/metrics')).text(), 'workflow_index_ready')).toEqual(['workflow_index_ready{backend="test"} 1']);
    app.startDraining();
    expect((await get(app, '/q/health/ready')).status).toBe(503);
    expect(series(await (await get(app, '/q/metrics')).text(), 'workflow_index_ready')).toEqual(['workflow_index_ready{backend="test"} 0']);
  });
});

describe('workflow_index_ingest_errors_total', () => {
  it('follows the backend\'s running count and never goes down when it drops (prune, rebuild)', async () => {
    const counts = [2, 5, 5, 1, 3, 0, 4];
    let i = 0;
    const reader = new RecordingReader({ ingestionStats: () => Promise.resolve({ ...DEFAULT_STATS, ingestErrors: counts[i++]! }) });
    const { app } = testApp({ reader });
    const seen: string[] = [];
    for (let n = 0; n < counts.length; n++) seen.push(...series(await (await get(app, '/q/metrics')).text(), 'workflow_index_ingest_errors_total'));
    expect(seen.map((l) => Number(l.split(' ')[1]))).toEqual([2, 5, 5, 5, 7, 7, 11]);
    expect(await (await get(app, '/q/metrics')).text()).toContain('# TYPE workflow_index_ingest_errors_total counter');
  });

  it('MonotonicTotal: never decreases, starts at the first read, adds exactly the increases', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1_000_000 }), { minLength: 1, maxLength: 50 }), (reads) => {
        const total = new MonotonicTotal();
        const values = reads.map((r) => total.observe(r));
        let expected = reads[0]!;
        for (let k = 1; k < reads.length; k++) expected += Math.max(0, reads[k]! - reads[k - 1]!);
        expect(values.at(-1)).toBe(expected);
        for (let k = 1; k < values.length; k++) expect(values[k]!).toBeGreaterThanOrEqual(values[k - 1]!);
      }),
    );
  });
});

describe('workflow_index_instances_by_status', () => {
  it('one series per status, from the backend\'s counts by status', async () => {
    const { app } = testApp({ reader: new RecordingReader() });
    expect(series(await (await get(app, '/q/metrics')).text(), 'workflow_index_instances_by_status')).toEqual([
      'workflow_index_instances_by_status{status="RUNNING",backend="test"} 0',
      'workflow_index_instances_by_status{status="COMPLETED",backend="test"} 1',
      'workflow_index_instances_by_status{status="FAULTED",backend="test"} 2',
      'workflow_index_instances_by_status{status="CANCELLED",backend="test"} 3',
      'workflow_index_instances_by_status{status="SUSPENDED",backend="test"} 4',
    ]);
  });

  it('no series while the backend has not answered the counts once', async () => {
    const reader = new RecordingReader();
    Object.assign(reader, { countInstancesByStatus: () => Promise.reject(new Error('down')) });
    const { app } = testApp({ reader });
    expect(series(await (await get(app, '/q/metrics')).text(), 'workflow_index_instances_by_status')).toEqual([]);
  });
});
