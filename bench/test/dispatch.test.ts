// `npm run bench:ingest|bench:query|bench:stats|bench:export [-- --backend …]`: the backend is taken out of the arguments (default
// postgresql, so the PostgreSQL benchmarks run exactly as before), everything else reaches the benchmark, and an
// unknown backend is refused before anything runs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDispatch } from '../dispatch.js';

const DISPATCH = fileURLToPath(new URL('../dispatch.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('bench:* --backend dispatch', () => {
  it('defaults to postgresql and passes every other argument on, in order', () => {
    expect(parseDispatch(['ingest', '--instances', '10', '--batch-sizes', '100'])).toEqual({ bench: 'ingest', backend: 'postgresql', rest: ['--instances', '10', '--batch-sizes', '100'] });
    expect(parseDispatch(['query', '--backend', 'opensearch', '--duration', '5'])).toEqual({ bench: 'query', backend: 'opensearch', rest: ['--duration', '5'] });
    expect(parseDispatch(['query', '--duration=5', '--backend=postgresql'])).toEqual({ bench: 'query', backend: 'postgresql', rest: ['--duration=5'] });
    expect(parseDispatch(['stats', '--backend', 'opensearch', '--instances', '10'])).toEqual({ bench: 'stats', backend: 'opensearch', rest: ['--instances', '10'] });
    expect(parseDispatch(['export', '--backend', 'opensearch', '--reuse-prefix', 'p-'])).toEqual({ bench: 'export', backend: 'opensearch', rest: ['--reuse-prefix', 'p-'] });
  });

  it('refuses an unknown backend or benchmark with what is allowed', () => {
    expect(parseDispatch(['ingest', '--backend', 'mysql'])).toEqual({ problem: '--backend must be postgresql or opensearch, got "mysql"' });
    expect(parseDispatch(['ingest', '--backend'])).toEqual({ problem: '--backend must be postgresql or opensearch, got ""' });
    expect(parseDispatch(['load'])).toEqual({ problem: 'first argument must be ingest, query, push, stats, export, got "load"' });
  });

  it('runs the chosen backend\'s script with the remaining arguments and returns its exit code', () => {
    const run = (args: string[]) => spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', DISPATCH, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
    const postgresql = run(['ingest', '--help']);
    expect(postgresql.status).toBe(0);
    expect(postgresql.stdout).toContain('--database-url'); // the PostgreSQL benchmark's own options
    const opensearch = run(['query', '--backend', 'opensearch', '--help']);
    expect(opensearch.status).toBe(0);
    expect(opensearch.stdout).toContain('--freshness-samples');
    const refused = run(['query', '--backend', 'mysql']);
    expect([refused.status, refused.stderr]).toEqual([2, 'bench: --backend must be postgresql or opensearch, got "mysql"\n']);
  }, 180_000);
});
