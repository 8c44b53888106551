// Figures of the server child process of the query benchmarks, read from /proc: its CPU time (per request, the
// server's cost of a row whatever else loads the machine: latency and throughput move with the load, CPU per request
// much less) and its peak RSS.
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
