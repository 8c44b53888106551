// Micrometer's process and system gauges on /q/metrics: process_uptime_seconds, process_cpu_usage,
// system_cpu_usage, system_cpu_count, system_load_average_1m, process_files_open_files, process_files_max_files;
// prom-client's own process metrics stay alongside.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { get, testApp } from '@workflow-index/testkit';
import { maxFileCount, openFileCount, systemMetrics } from '../src/metrics/system-metrics.js';

function value(text: string, name: string): number {
  const lines = text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  expect(lines, name).toHaveLength(1);
  return Number(lines[0]!.split(' ').at(-1));
}

const linux = process.platform === 'linux';

describe('Micrometer process and system gauges', () => {
  it('are scraped from /q/metrics with sane values, next to prom-client\'s process metrics', async () => {
    const { app } = testApp();
    // Some CPU between the registry's start and the scrape.
    const until = performance.now() + 50;
    while (performance.now() < until) Math.sqrt(Math.random());
    const text = await (await get(app, '/q/metrics')).text();
    expect(text).toContain('# TYPE process_uptime_seconds gauge');
    expect(text).toMatch(/^process_uptime_seconds\{backend="test"\} /m);
    const uptime = value(text, 'process_uptime_seconds');
    expect(uptime).toBeGreaterThan(0);
    expect(uptime).toBeLessThanOrEqual(process.uptime());
    expect(value(text, 'system_cpu_count')).toBe(os.availableParallelism());
    for (const name of ['system_cpu_usage', 'process_cpu_usage']) {
      const usage = value(text, name);
      expect(usage, name).toBeGreaterThanOrEqual(0);
      expect(usage, name).toBeLessThanOrEqual(1);
    }
    expect(value(text, 'process_cpu_usage')).toBeGreaterThan(0);
    expect(value(text, 'system_load_average_1m')).toBeCloseTo(os.loadavg()[0]!, 0);
    expect(value(text, 'system_load_average_1m')).toBeGreaterThanOrEqual(0);
    if (linux) {
      const open = value(text, 'process_files_open_files');
      const max = value(text, 'process_files_max_files');
      expect(open).toBeGreaterThan(2);
      expect(max).toBeGreaterThanOrEqual(open);
      // The same counts prom-client exports under its own names.
      expect(max).toBe(value(text, 'process_max_fds'));
      expect(Math.abs(open - value(text, 'process_open_fds'))).toBeLessThanOrEqual(5);
    }
    // Nothing is exported twice.
    const types = text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
  });

  it('reports CPU usage between two scrapes and keeps the previous value within one clock tick', async () => {
    const registry = new Registry();
    systemMetrics(registry, { procSelf: '/nonexistent' });
    const first = value(await registry.metrics(), 'system_cpu_usage');
    const again = value(await registry.metrics(), 'system_cpu_usage');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(again).toBeGreaterThanOrEqual(0);
    expect(again).toBeLessThanOrEqual(1);
  });

  it('leaves the file gauges out without /proc, and reads the soft limit and descriptors of a /proc', async () => {
    const registry = new Registry();
    systemMetrics(registry, { procSelf: '/nonexistent' });
    const text = await registry.metrics();
    expect(text).not.toContain('process_files_');
    expect(text).toContain('process_uptime_seconds');

    const dir = mkdtempSync(join(os.tmpdir(), 'wi-proc-'));
    try {
      mkdirSync(join(dir, 'fd'));
      for (const fd of ['0', '1', '2', '3']) writeFileSync(join(dir, 'fd', fd), '');
      writeFileSync(join(dir, 'limits'), [
        'Limit                     Soft Limit           Hard Limit           Units     ',
        'Max processes             unlimited            unlimited            processes ',
        'Max open files            1048576              1048576              files     ',
        '',
      ].join('\n'));
      expect(openFileCount(dir)).toBe(3);
      expect(maxFileCount(dir)).toBe(1048576);
      const withProc = new Registry();
      systemMetrics(withProc, { procSelf: dir });
      const scraped = await withProc.metrics();
      expect(value(scraped, 'process_files_open_files')).toBe(3);
      expect(value(scraped, 'process_files_max_files')).toBe(1048576);
      writeFileSync(join(dir, 'limits'), 'Max open files            unlimited            unlimited            files     \n');
      expect(maxFileCount(dir)).toBe(Infinity);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
