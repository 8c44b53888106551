// Figures of the server child process of the query benchmarks, read from /proc: its CPU time (per request, the
// server's cost of a row whatever else loads the machine: latency and throughput move with the load, CPU per request
// much less) and its peak RSS.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { round } from './http-load.js';

/** USER_HZ: the unit of /proc/<pid>/stat's times (100 on Linux, whatever the kernel's HZ). */
const CLOCK_TICKS = 100;

/** CPU time (user + system) the process has used, in ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The process's peak resident set (VmHWM), MiB. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return round(Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024, 1);
}

/** The process's current resident set (VmRSS), MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return round(Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024, 1);
}

/** Waits until the child's readiness probe `readyUrl` answers 200; fails when it exits first or after `seconds`. */
export async function waitUntilReady(child: ChildProcess, readyUrl: string, what: string, seconds: number): Promise<void> {
  const readyBy = Date.now() + seconds * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} during start-up`);
    if ((await fetch(readyUrl).then((r) => r.status, () => 0)) === 200) return;
    if (Date.now() > readyBy) throw new Error(`${what} did not become ready within ${seconds} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
