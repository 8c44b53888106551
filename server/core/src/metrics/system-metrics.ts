// The process and system gauges a Micrometer user looks for, under Micrometer's names, besides prom-client's default
// metrics (which stay as they are): process_uptime_seconds, process_cpu_usage, system_cpu_usage, system_cpu_count,
// system_load_average_1m, process_files_open_files and process_files_max_files. Each is computed when scraped.
// The two file gauges read /proc (Linux); where it is missing they are not exported, as Micrometer leaves out
// what its platform does not report.
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

export interface SystemMetricsOptions {
  /** The /proc of this process (tests pass a folder of their own). */
  readonly procSelf?: string;
}

interface CpuTimes {
  readonly idle: number;
  readonly total: number;
}

function systemCpuTimes(): CpuTimes {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/** Open descriptors of the process: the entries of <proc>/fd, less the one readdir itself holds; null without it. */
export function openFileCount(procSelf: string): number | null {
  try {
    return readdirSync(`${procSelf}/fd`).length - 1;
  } catch {
    return null;
  }
}

/** The soft limit of open files (`Max open files` in <proc>/limits); null when unknown, Infinity when unlimited. */
export function maxFileCount(procSelf: string): number | null {
  try {
    const line = readFileSync(`${procSelf}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === undefined) return null;
    if (soft === 'unlimited') return Infinity;
    const value = Number(soft);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

export function systemMetrics(registry: Registry, options: SystemMetricsOptions = {}): void {
  const procSelf = options.procSelf ?? '/proc/self';
  const registers = [registry];

  new Gauge({
    name: 'process_uptime_seconds',
    aggregator: 'max',
    help: 'The uptime of the process.',
    registers,
    collect() {
      this.set(process.uptime());
    },
  });

  new Gauge({
    name: 'system_cpu_count',
    aggregator: 'first',
    help: 'The number of processors available to the process.',
    registers,
    collect() {
      this.set(os.availableParallelism());
    },
  });

  // Usage between two scrapes (the first: since the registry was made); a scrape within the same clock tick as
  // the previous one repeats the previous value.
  let system = systemCpuTimes();
  let systemUsage = 0;
  new Gauge({
    name: 'system_cpu_usage',
    aggregator: 'first',
    help: 'The recent CPU usage of the whole system (all processors, 0 to 1) since the previous scrape.',
    registers,
    collect() {
      const now = systemCpuTimes();
      const total = now.total - system.total;
      if (total > 0) {
        systemUsage = Math.min(1, Math.max(0, 1 - (now.idle - system.idle) / total));
        system = now;
      }
      this.set(systemUsage);
    },
  });

  let processCpu = process.cpuUsage();
  let processAt = performance.now();
  let processUsage = 0;
  new Gauge({
    name: 'process_cpu_usage',
    help: 'The recent CPU usage of the process (0 to 1 of all available processors) since the previous scrape.',
    registers,
    collect() {
      const at = performance.now();
      const elapsedMicros = (at - processAt) * 1000;
      if (elapsedMicros > 0) {
        const used = process.cpuUsage(processCpu);
        processUsage = Math.min(1, Math.max(0, (used.user + used.system) / (elapsedMicros * os.availableParallelism())));
        processCpu = process.cpuUsage();
        processAt = at;
      }
      this.set(processUsage);
    },
  });

  new Gauge({
    name: 'system_load_average_1m',
    aggregator: 'first',
    help: 'The number of runnable entities queued on or running on the processors, averaged over a minute (0 where the platform has none).',
    registers,
    collect() {
      this.set(os.loadavg()[0] ?? 0);
    },
  });

  if (openFileCount(procSelf) !== null) {
    new Gauge({
      name: 'process_files_open_files',
      help: 'The open file descriptor count.',
      registers,
      collect() {
        this.set(openFileCount(procSelf) ?? 0);
      },
    });
  }
  if (maxFileCount(procSelf) !== null) {
    new Gauge({
      name: 'process_files_max_files',
      aggregator: 'first',
      help: 'The maximum file descriptor count (the soft limit).',
      registers,
      collect() {
        this.set(maxFileCount(procSelf) ?? 0);
      },
    });
  }
}
