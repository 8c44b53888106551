// SERVER_PROCESSES > 1 end to end: main.ts as a child process (a primary and its workers, node:cluster) against real
// PostgreSQL. The workers share the port and each answers its share of the connections; /q/metrics is the whole
// server (per-process counts summed, backend-wide values once); a worker that dies is replaced while the others
// answer; SIGTERM drains them all; a worker that cannot start fails the start.
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect } from 'vitest';
import { fixtureEvents, postGraphQLOnce } from '@workflow-index/testkit';
import { postgresTest } from './support/fixtures.js';
import { loadEvents } from './support/load-events.js';
import { startMain, stop, type ServerProcess } from './support/main-process.js';
import type { TestDatabase } from './support/test-database.js';

const it = postgresTest({ prefix: 'wi_processes' });

const FIXTURE_INSTANCE_COUNT = 8;
const COUNT_QUERY = '{ getWorkflowInstances { id } }';

interface Started { readonly server: ServerProcess; readonly baseUrl: string; readonly workers: readonly number[] }

async function startProcesses(databaseUrl: string, env: Record<string, string> = {}): Promise<Started> {
  const server = startMain({ NODE_ENV: 'production', HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0', DATABASE_URL: databaseUrl, SERVER_PROCESSES: '2', ...env }, [], 60_000);
  const listening = await server.waitFor(/"httpPort":(\d+),"msg":"server started"/);
  const all = await server.waitFor(/"workers":\[(\d+),(\d+)\],"msg":"server processes started"/);
  return { server, baseUrl: `http://127.0.0.1:${listening[1]}`, workers: [Number(all[1]), Number(all[2])] };
}

async function answeredRuns(baseUrl: string): Promise<number> {
  const { status, body } = await postGraphQLOnce(baseUrl, COUNT_QUERY);
  expect(status).toBe(200);
  return (body.data?.['getWorkflowInstances'] as unknown[]).length;
}

/** The request lines of the output by the worker that wrote them (the primary's lines carry no worker). */
function requestLinesByWorker(output: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"request"') || !line.includes('"path":"/graphql"')) continue;
    const worker = (JSON.parse(line) as { worker?: number }).worker ?? 0;
    counts.set(worker, (counts.get(worker) ?? 0) + 1);
  }
  return counts;
}

function metricValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.indexOf('}'));
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid` (Linux /proc). */
function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Gone since the directory was read.
    }
  }
  return children;
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const began = performance.now();
  while (!(await check())) {
    if (performance.now() - began > timeoutMs) throw new Error(`still not ${what} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('SERVER_PROCESSES: a primary and its workers on one port', () => {
  let db: TestDatabase;
  const servers: ServerProcess[] = [];

  it.beforeAll(async ({ database }) => {
    db = database;
    await loadEvents(db.pool, fixtureEvents());
  });
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  });

  it('spreads connections over the workers; /q/metrics sums their counts and gives backend-wide values once', async () => {
    const { server, baseUrl, workers } = await startProcesses(db.url);
    servers.push(server);
    expect(new Set(workers).size).toBe(2);
    expect(workers.every(alive)).toBe(true);
    const requests = 40;
    for (let i = 0; i < requests; i++) expect(await answeredRuns(baseUrl)).toBe(FIXTURE_INSTANCE_COUNT);
    // Request lines wait up to 100 ms in each worker's buffer.
    await until(() => [...requestLinesByWorker(server.output()).values()].reduce((a, b) => a + b, 0) === requests, 'every request line written');
    const byWorker = requestLinesByWorker(server.output());
    expect([...byWorker.keys()].sort()).toEqual([1, 2]);
    expect(Math.min(...byWorker.values())).toBeGreaterThanOrEqual(requests / 4);

    const metrics = await (await fetch(`${baseUrl}/q/metrics`)).text();
    expect(metricValue(metrics, 'http_server_requests_seconds_count', { method: 'POST', uri: '/graphql', status: '200' })).toBe(requests);
    const byStatus = ['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'].map((status) => metricValue(metrics, 'workflow_index_instances_by_status', { status }) ?? 0);
    expect(byStatus.reduce((a, b) => a + b, 0)).toBe(FIXTURE_INSTANCE_COUNT);
    expect(metricValue(metrics, 'system_cpu_count', {})).toBeGreaterThan(0);
    expect(metricValue(metrics, 'workflow_index_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(2);
    expect(await stop(server)).toBe(0);
  });

  it('replaces a worker that dies while the other answers; SIGTERM drains every worker and the primary exits 0', async () => {
    const { server, baseUrl, workers } = await startProcesses(db.url);
    servers.push(server);
    const [victim, survivor] = workers as [number, number];
    process.kill(victim, 'SIGKILL');
    await server.waitFor(/"msg":"a server process exited: starting another"/);
    // While the replacement loads, a scrape is the started worker's alone (a process still loading cannot answer).
    const scrape = await fetch(`${baseUrl}/q/metrics`);
    expect(scrape.status).toBe(200);
    expect((server.output().match(/"msg":"server started"/g) ?? []).length).toBe(2);
    expect(metricValue(await scrape.text(), 'workflow_index_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 10; i++) expect(await answeredRuns(baseUrl)).toBe(FIXTURE_INSTANCE_COUNT);
    await until(() => (server.output().match(/"msg":"server started"/g) ?? []).length === 3, 'a third worker started');
    for (let i = 0; i < 10; i++) expect(await answeredRuns(baseUrl)).toBe(FIXTURE_INSTANCE_COUNT);
    const current = childPids(server.child.pid ?? 0);
    expect(current).toHaveLength(2);
    expect(current).toContain(survivor);
    expect(current).not.toContain(victim);

    expect(await stop(server)).toBe(0);
    expect(current.filter(alive)).toEqual([]);
    expect((server.output().match(/"msg":"shutdown complete"/g) ?? []).length).toBe(2);
  });

  it('fails the start with exit 1, and starts no other worker, when a worker cannot listen', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const server = startMain({ NODE_ENV: 'production', HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port), HEALTH_DISK_MIN_FREE_BYTES: '0', DATABASE_URL: db.url, SERVER_PROCESSES: '2' }, [], 60_000);
      servers.push(server);
      expect(await server.exited).toBe(1);
      expect(server.output()).toContain('"msg":"a server process failed to start"');
      expect(server.output()).not.toContain('starting another');
    } finally {
      taken.close();
    }
  });
});
