// MicroProfile Health shaped reports (what Quarkus-based deployments and their probes expect):
// {"status":"UP","checks":[{"name":"…","status":"UP","data":{…}}]}.
import { statfs } from 'node:fs/promises';
import type { CoreConfig } from './config.js';
import type { Reader } from './reader.js';
import { withTimeout } from './timeout.js';

export type HealthStatus = 'UP' | 'DOWN';
export interface HealthCheck {
  readonly name: string;
  readonly status: HealthStatus;
  readonly data?: Readonly<Record<string, string | number | boolean>>;
}
export interface HealthReport {
  readonly status: HealthStatus;
  readonly checks: readonly HealthCheck[];
}

export function report(checks: readonly HealthCheck[]): HealthReport {
  return { status: checks.every((c) => c.status === 'UP') ? 'UP' : 'DOWN', checks };
}

/** No dependency checks: a liveness failure restarts the pod, which does not fix a database. */
export function livenessChecks(startedAt: number): HealthCheck[] {
  return [{ name: 'process', status: 'UP', data: { uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000) } }];
}

export async function readinessChecks(deps: {
  readonly reader: Reader;
  readonly config: CoreConfig;
  readonly backend: string;
  readonly draining: boolean;
}): Promise<HealthCheck[]> {
  const checks = await Promise.all([backendCheck(deps.reader, deps.backend, deps.config.health.backendTimeoutMs), diskCheck(deps.config.health)]);
  if (deps.draining) checks.push({ name: 'shutdown', status: 'DOWN', data: { draining: true } });
  return checks;
}

async function backendCheck(reader: Reader, backend: string, timeoutMs: number): Promise<HealthCheck> {
  const started = performance.now();
  try {
    // The reader bounds its own ping; the outer bound protects against one that does not.
    await withTimeout(reader.ping(timeoutMs), timeoutMs + 250, `${backend} ping`);
    return { name: 'backend', status: 'UP', data: { backend, durationMs: Math.round(performance.now() - started) } };
  } catch (error) {
    return { name: 'backend', status: 'DOWN', data: { backend, error: error instanceof Error ? error.message : String(error) } };
  }
}

async function diskCheck(health: CoreConfig['health']): Promise<HealthCheck> {
  if (health.diskMinFreeBytes === 0) return { name: 'disk-space', status: 'UP', data: { path: health.diskPath, check: 'disabled' } };
  try {
    const fs = await statfs(health.diskPath);
    const free = fs.bavail * fs.bsize;
    return {
      name: 'disk-space',
      status: free >= health.diskMinFreeBytes ? 'UP' : 'DOWN',
      data: { path: health.diskPath, freeBytes: free, totalBytes: fs.blocks * fs.bsize, thresholdBytes: health.diskMinFreeBytes },
    };
  } catch (error) {
    return { name: 'disk-space', status: 'DOWN', data: { path: health.diskPath, error: error instanceof Error ? error.message : String(error) } };
  }
}
