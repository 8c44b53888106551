// Figures of the server child process of the query benchmarks, read from /proc: its CPU time (per request, the
// server's cost of a row whatever else loads the machine: latency and throughput move with the load, CPU per request
// much less) and its peak RSS. With SERVER_PROCESSES above 1 the child is the primary: both figures add its workers.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { round } from './http-load.js';

/** USER_HZ: the unit of /proc/<pid>/stat's times (100 on Linux, whatever the kernel's HZ). */
const CLOCK_TICKS = 100;

/** The fields of /proc/<pid>/stat after the command name (state is [0], ppid [1], utime [11], stime [12]). */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The process and its live children (a server's workers). */
function serverProcesses(pid: number): number[] {
  const pids = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(entry)[1]) === pid) pids.push(Number(entry));
    } catch {
      // Gone since the directory was read.
    }
  }
  return pids;
}

/** CPU time (user + system) the process and its workers have used, in ms. */
export function cpuMs(pid: number): number {
  let ticks = 0;
  for (const one of serverProcesses(pid)) {
    const fields = statFields(one);
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / CLOCK_TICKS;
}

/** The peak resident set (VmHWM) of the process and its workers, added, MiB. */
export function peakRssMiB(pid: number): number {
  let kB = 0;
  for (const one of serverProcesses(pid)) {
    const status = readFileSync(`/proc/${one}/status`, 'utf8');
    kB += Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
  }
  return round(kB / 1024, 1);
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
