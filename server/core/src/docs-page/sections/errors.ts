import type { CoreConfig } from '../../config.js';
import { ErrorCode } from '../../errors.js';
import { paragraph, table } from '../blocks.js';
import type { Section } from '../blocks.js';

export interface ErrorCodeDoc {
  readonly code: string;
  /** When a client gets it, with the bounds as configured. */
  readonly when: string;
}

export function errorCodes(config: CoreConfig): readonly ErrorCodeDoc[] {
  const g = config.graphql;
  const http = config.http;
  return [
    {
      code: ErrorCode.BAD_USER_INPUT,
      when: `An argument is not allowed (limit, offset, DateTime without offset, empty JSON key segment, unknown task status, variable of the wrong type, a NUL character or lone surrogate in a value, a JSON filter number outside the double range, and/or/not nested deeper than ${g.maxFilterDepth} levels, a filter of more than ${g.maxFilterConditions} conditions or an in list of more than ${g.maxFilterInValues} values), the request may read more than ${g.maxCost} rows (GRAPHQL_MAX_COST: each list counts its limit and 1 per 10 rows its offset skips, each taskExecutions list ${g.costTasksPerInstance} per instance of its list), or it is a mutation or subscription (the API is read-only); the message says what is allowed.`,
    },
    { code: ErrorCode.UNAUTHENTICATED, when: 'AUTH_MODE=oidc: no Authorization: Bearer token, or one that does not verify (expired, another issuer or audience, unknown key, bad signature): HTTP 401 with WWW-Authenticate: Bearer; nothing is executed.' },
    { code: ErrorCode.FORBIDDEN, when: 'AUTH_MODE=oidc: a filter on payloads (input, output, inputArgs, outputArgs, error.detail) without payload access to every namespace you see, or indexStatus without a rule for every namespace (*); refused before anything is read.' },
    { code: ErrorCode.QUERY_TIMEOUT, when: 'The query ran past the time the backend allows and was stopped (extensions.cost: what it was priced at; extensions.timeoutMs); it would again: narrow it, do not retry it.' },
    { code: ErrorCode.SERVICE_UNAVAILABLE, when: 'The storage backend cannot be reached, does not answer or is busy; retry later.' },
    { code: ErrorCode.INTERNAL_SERVER_ERROR, when: 'Anything unexpected: the message is "Unexpected error."; the server log has the details, the query and the variables.' },
    { code: ErrorCode.GRAPHQL_PARSE_FAILED, when: 'The query is not valid GraphQL syntax.' },
    { code: ErrorCode.GRAPHQL_VALIDATION_FAILED, when: 'The query does not fit the schema (unknown field, wrong literal type, introspection when disabled, …).' },
    { code: ErrorCode.MAX_DEPTH_EXCEEDED, when: `Selections nested deeper than ${g.maxDepth} levels; nothing is executed.` },
    { code: ErrorCode.MAX_ALIASES_EXCEEDED, when: `More than ${g.maxAliases} aliases.` },
    { code: ErrorCode.MAX_TOKENS_EXCEEDED, when: `More than ${g.maxTokens} tokens in the document.` },
    { code: ErrorCode.MAX_DIRECTIVES_EXCEEDED, when: `More than ${g.maxDirectives} directives.` },
    { code: ErrorCode.METHOD_NOT_ALLOWED, when: 'GET (or any method but POST) on /graphql: HTTP 405, nothing is executed.' },
    { code: 'REQUEST_ENTITY_TOO_LARGE', when: `Request body above ${http.maxBodyBytes} bytes (after gzip decompression): HTTP 413.` },
    { code: 'BAD_REQUEST', when: 'The body is not JSON or not valid gzip (HTTP 400), or uses a Content-Encoding other than gzip (HTTP 415).' },
    { code: ErrorCode.CSRF_HEADER_REQUIRED, when: 'A POST that is not Content-Type: application/json and carries none of the headers x-graphql-yoga-csrf, x-requested-with, apollo-require-preflight: HTTP 403.' },
    {
      code: ErrorCode.TOO_MANY_REQUESTS,
      when: `The client already has ${http.maxRequestsPerClient} requests in flight (HTTP_MAX_REQUESTS_PER_CLIENT): HTTP 429 with Retry-After; wait for an answer, then retry.`,
    },
    {
      code: ErrorCode.REQUEST_TIMEOUT,
      when: `The request's headers took longer than ${http.headersTimeoutMs} ms to arrive, or the whole request (body included) longer than ${http.bodyTimeoutMs} ms from its first byte (HTTP_HEADERS_TIMEOUT_MS, HTTP_BODY_TIMEOUT_MS): HTTP 408 and the connection is closed. Send the body right after the headers.`,
    },
  ];
}

export function errors(config: CoreConfig): Section {
  return {
    id: 'errors',
    title: 'Errors',
    nav: 'Errors',
    blocks: [
      paragraph('Errors follow the GraphQL response format; each carries a stable <code>extensions.code</code>.'),
      table(
        ['code', 'when'],
        errorCodes(config).map(({ code, when }) => [`\`${code}\``, when]),
      ),
    ],
  };
}
