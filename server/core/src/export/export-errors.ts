// What a failed read of an export tells the client, as the GraphQL layer would tell it (the same codes and
// messages): before the first row as an HTTP status with a GraphQL-shaped error body, after it in the trailer.
import { ErrorCode, errorCodeOf, isBackendUnavailable, queryTimeoutMessage, queryTimeoutOf, SERVICE_UNAVAILABLE_MESSAGE, UNEXPECTED_ERROR_MESSAGE } from '../errors.js';
import { isGraphQLError } from '../graphql-runtime.js';
import type { Logger } from '../logger.js';

export interface ExportProblem {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/** The status, code and message of a failure; an unexpected one is logged and masked. */
export function describeExportError(error: unknown, logger: Logger, cost: number | null = null): ExportProblem {
  if (isBackendUnavailable(error)) return { status: 503, code: ErrorCode.SERVICE_UNAVAILABLE, message: SERVICE_UNAVAILABLE_MESSAGE };
  const timeout = queryTimeoutOf(error);
  if (timeout !== null) return { status: 504, code: ErrorCode.QUERY_TIMEOUT, message: queryTimeoutMessage(timeout, cost) };
  if (isGraphQLError(error)) {
    const code = errorCodeOf(error);
    if (code === ErrorCode.BAD_USER_INPUT) return { status: 400, code, message: error.message };
    if (code === ErrorCode.FORBIDDEN) return { status: 403, code, message: error.message };
  }
  logger.error({ err: error }, 'export failed');
  return { status: 500, code: ErrorCode.INTERNAL_SERVER_ERROR, message: UNEXPECTED_ERROR_MESSAGE };
}
