// Every request ends in one log line and one observation of the HTTP metrics; POST /graphql also in the GraphQL
// operation metrics. Probes and scrapes arrive every few seconds: their lines go to debug.
import { GRAPHQL_ENDPOINT } from '../graphql-server.js';
import { REQUEST_LOG_MESSAGE } from '../logger.js';
import type { Logger } from '../logger.js';
import type { AppMetrics } from '../metrics/create-metrics.js';
import type { RequestState } from '../request-state.js';

const QUIET_ROUTES = new Set(['/q/health', '/q/health/live', '/q/health/ready', '/q/metrics']);

/** `route` as routeLabel gives it; `started`: performance.now() when the request arrived. */
export type RecordRequest = (method: string, route: string, path: string, status: number, started: number, state: RequestState) => void;

export function requestRecorder(metrics: AppMetrics, logger: Logger): RecordRequest {
  return (method, route, path, status, started, state) => {
    const seconds = (performance.now() - started) / 1000;
    metrics.observeHttp(method, route, status, seconds);
    if (state.authRefusal !== null) metrics.observeAuthRefusal(state.authRefusal);
    if (route === GRAPHQL_ENDPOINT && method === 'POST') metrics.observeOperation(state.operationType, state.operationName, seconds, state.errorCodes);
    const entry = logEntry(method, route, path, status, seconds, state);
    if (QUIET_ROUTES.has(route)) logger.debug(entry, REQUEST_LOG_MESSAGE);
    else logger.info(entry, REQUEST_LOG_MESSAGE);
  };
}

function logEntry(method: string, route: string, path: string, status: number, seconds: number, state: RequestState): Record<string, unknown> {
  return {
    method,
    route,
    path,
    status,
    durationMs: Math.round(seconds * 100_000) / 100,
    ...(state.subject !== null ? { subject: state.subject } : {}),
    ...(state.operationName !== null ? { operationName: state.operationName } : {}),
    ...(state.operationType !== null ? { operationType: state.operationType } : {}),
    ...(state.errorCodes.length > 0 ? { errorCodes: state.errorCodes } : {}),
  };
}
