// /q/health, /q/health/live and /q/health/ready: MicroProfile Health reports, 503 when DOWN. Every readiness
// evaluation (the probes') is exported as workflow_index_ready.
import type { CoreConfig } from '../config.js';
import { livenessChecks, readinessChecks, report } from '../health.js';
import type { HealthCheck } from '../health.js';
import type { Reader } from '../reader.js';
import { JSON_TYPE } from './responses.js';
import { readRoute } from './route-table.js';
import type { Route } from './route-table.js';

export interface HealthDeps {
  readonly config: CoreConfig;
  readonly reader: Reader;
  readonly backend: string;
  /** Date.now() when the app was built: the process check's uptime. */
  readonly startedAt: number;
  /** True once the app drains (graceful shutdown): readiness is DOWN. */
  readonly draining: () => boolean;
  readonly observeReadiness: (up: boolean) => void;
}

export function healthRoutes(deps: HealthDeps): { readonly all: Route; readonly live: Route; readonly ready: Route } {
  return {
    all: readRoute(() => health(deps, 'all')),
    live: readRoute(() => health(deps, 'live')),
    ready: readRoute(() => health(deps, 'ready')),
  };
}

async function health(deps: HealthDeps, kind: 'live' | 'ready' | 'all'): Promise<Response> {
  const { config, reader, backend } = deps;
  const checks: HealthCheck[] = [];
  if (kind !== 'ready') checks.push(...livenessChecks(deps.startedAt));
  if (kind !== 'live') checks.push(...(await readinessChecks({ reader, config, backend, draining: deps.draining() })));
  const body = report(checks);
  if (kind !== 'live') deps.observeReadiness(body.status === 'UP');
  return new Response(JSON.stringify(body), {
    status: body.status === 'UP' ? 200 : 503,
    headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' },
  });
}
