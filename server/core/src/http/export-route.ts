// GET /export/workflow-instances?format=csv|jsonl&filter=<JSON of WorkflowInstanceFilterInput>: every matching run,
// newest first, streamed as an attachment (CONTRACT §9). Everything that can refuse it does so before the first byte,
// with a status and a GraphQL-shaped error as /graphql's: the format, the client's share of
// HTTP_MAX_REQUESTS_PER_CLIENT (429), the credentials (AUTH_MODE=oidc: 401/503), the filter (400), the cost of a page
// (400 above GRAPHQL_MAX_COST; then held in GRAPHQL_MAX_COST_IN_FLIGHT, 503 after the queue timeout) and the first
// page's read (400/403/503/504). From then on the slot and the cost are held until the body ends, however it ends.
import type { GraphQLInputObjectType, GraphQLSchema } from 'graphql';
import { scopedReader } from '../auth/scoped-reader.js';
import { streamedBody } from '../compression.js';
import type { CoreConfig } from '../config.js';
import { CostQueueTimeout } from '../cost-budget.js';
import { ErrorCode } from '../errors.js';
import { checkPageCost, exportPageCost } from '../export/export-cost.js';
import { describeExportError } from '../export/export-errors.js';
import { instanceFilterType, parseExportFilter } from '../export/export-filter.js';
import { EXPORT_FORMATS, EXPORT_WRITERS } from '../export/export-format.js';
import type { ExportEnd, ExportFormat } from '../export/export-format.js';
import { exportStream } from '../export/export-stream.js';
import { RunPages } from '../export/run-pages.js';
import type { Logger } from '../logger.js';
import type { Reader } from '../reader.js';
import { requestContext } from '../request-context.js';
import type { RequestState } from '../request-state.js';
import type { ClientInfo } from './fetch-handler.js';
import { refusedCredentials } from './graphql-endpoint.js';
import type { GraphQLEndpoint } from './graphql-endpoint.js';
import type { PerClientLimit } from './per-client-limit.js';
import { graphqlError, text } from './responses.js';
import type { Route } from './route-table.js';

export const EXPORT_PATH = '/export/workflow-instances';

export interface ExportDeps {
  readonly config: CoreConfig;
  readonly logger: Logger;
  /** The app's Reader; each export reads through the subject's scoped view of it. */
  readonly reader: Reader;
  readonly schema: GraphQLSchema;
  /** Its authenticator and cost budget, shared with POST /graphql. */
  readonly endpoint: GraphQLEndpoint;
  readonly perClient: PerClientLimit;
}

interface Held {
  releaseSlot: () => void;
  cost: number;
}

export function exportRoute(deps: ExportDeps): Route {
  const filterType = instanceFilterType(deps.schema);
  return {
    methods: new Map([['GET', (request: Request, state: RequestState, client: ClientInfo) => answerExport(deps, filterType, request, state, client)]]),
    otherMethods: () => text(405, `Method not allowed; ${EXPORT_PATH} accepts GET.\n`, { Allow: 'GET, OPTIONS' }),
  };
}

async function answerExport(deps: ExportDeps, filterType: GraphQLInputObjectType, request: Request, state: RequestState, client: ClientInfo): Promise<Response> {
  const url = new URL(request.url);
  const format = url.searchParams.get('format');
  if (!isFormat(format)) return refuse(state, 400, ErrorCode.BAD_USER_INPUT, `format must be one of ${EXPORT_FORMATS.join(', ')}, got ${format === null ? 'none' : JSON.stringify(format.slice(0, 40))}: ${EXPORT_PATH}?format=csv or ?format=jsonl`);
  const releaseSlot = deps.perClient.admitFetch(request.headers, client.address);
  if (releaseSlot === null) return deps.perClient.refuse(state);
  const held: Held = { releaseSlot, cost: 0 };
  try {
    const response = await startExport(deps, filterType, request, state, format, held);
    if (response.status !== 200) release(deps, held);
    return response;
  } catch (error) {
    release(deps, held);
    const problem = describeExportError(error, deps.logger, state.cost);
    return refuse(state, problem.status, problem.code, problem.message);
  }
}

/** Everything before the body; once it answers 200, the body owns what `held` holds. */
async function startExport(deps: ExportDeps, filterType: GraphQLInputObjectType, request: Request, state: RequestState, format: ExportFormat, held: Held): Promise<Response> {
  const { config, endpoint } = deps;
  const refusal = await refusedCredentials(endpoint, request.headers.get('authorization'), state);
  if (refusal !== null) return refusal;
  const parsed = parseExportFilter(new URL(request.url).searchParams.get('filter'), filterType, config.graphql);
  const pageSize = config.graphql.exportPageSize;
  const cost = exportPageCost(pageSize, parsed.input, filterType, deps.reader.workPrices);
  state.cost = cost.total;
  checkPageCost(cost, pageSize, config.graphql.maxCost);
  const admitted = await admitCost(endpoint, cost.total, request.signal, state);
  if (admitted !== null) return admitted;
  held.cost = cost.total;
  const reader = state.access === null ? deps.reader : scopedReader(deps.reader, state.access);
  const pages = new RunPages(reader, parsed.filter, pageSize);
  const first = await pages.next();
  const writer = EXPORT_WRITERS[format];
  const requestId = requestContext.getStore()?.requestId ?? null;
  const body = exportStream({ pages, first, writer, signal: request.signal, logger: deps.logger, onEnd: (end) => finished(deps, held, state, requestId, end) });
  return new Response(streamedBody(body), {
    status: 200,
    headers: {
      'Content-Type': writer.contentType,
      'Content-Disposition': `attachment; filename="workflow-instances-${fileTime(new Date())}.${writer.extension}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

/** Waits for room for one page in GRAPHQL_MAX_COST_IN_FLIGHT; null once admitted, else the 503. */
async function admitCost(endpoint: GraphQLEndpoint, cost: number, signal: AbortSignal, state: RequestState): Promise<Response | null> {
  try {
    await endpoint.costBudget.wait(cost, signal);
    return null;
  } catch (error) {
    const message = error instanceof CostQueueTimeout
      ? `The server is busy: this export waited ${endpoint.config.graphql.costQueueTimeoutMs} ms (GRAPHQL_COST_QUEUE_TIMEOUT_MS) for room in the budget of rows in flight (GRAPHQL_MAX_COST_IN_FLIGHT) and did not start. Retry after the Retry-After delay.`
      : 'The export was aborted while it waited for room in the budget of rows in flight (GRAPHQL_MAX_COST_IN_FLIGHT); it did not start.';
    return refuse(state, 503, ErrorCode.SERVICE_UNAVAILABLE, message, { 'Retry-After': '1' });
  }
}

function finished(deps: ExportDeps, held: Held, state: RequestState, requestId: string | null, end: ExportEnd | 'cancelled'): void {
  release(deps, held);
  const outcome = end === 'cancelled' ? { outcome: 'cancelled' } : end.complete ? { outcome: 'complete', rows: end.rows } : { outcome: 'truncated', rows: end.rows, errorCode: end.code };
  deps.logger.info({ ...(requestId === null ? {} : { requestId }), route: EXPORT_PATH, ...(state.subject === null ? {} : { subject: state.subject }), ...outcome }, 'export finished');
}

/** Gives back the slot and the cost (once: both are zeroed). */
function release(deps: ExportDeps, held: Held): void {
  held.releaseSlot();
  held.releaseSlot = () => undefined;
  deps.endpoint.costBudget.release(held.cost);
  held.cost = 0;
}

function refuse(state: RequestState, status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  state.errorCodes.push(code);
  return graphqlError(status, message, code, headers);
}

function isFormat(value: string | null): value is ExportFormat {
  return (EXPORT_FORMATS as readonly (string | null)[]).includes(value);
}

/** 2026-05-14T09:00:00.123Z → 20260514T090000Z (no characters a file system or header quoting minds). */
function fileTime(now: Date): string {
  return `${now.toISOString().slice(0, 19).replaceAll('-', '').replaceAll(':', '')}Z`;
}
