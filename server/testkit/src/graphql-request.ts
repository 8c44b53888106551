// The tests' GraphQL client: one POST to /graphql, either over the network (`target` is a server's base URL) or
// in process (`target` is the app, whose `fetch` takes the request exactly as a client sends it). The conformance
// suite's client (conformance/graphql-client.ts) sends each request more than once on top of this shape.
import { request as httpRequest } from 'node:http';

export interface GraphQLErrorBody {
  readonly message: string;
  readonly extensions?: Readonly<Record<string, unknown>>;
  readonly path?: readonly (string | number)[];
}

export type Variables = Readonly<Record<string, unknown>>;

export interface GraphQLResponseBody<T = Record<string, unknown>> {
  data?: T | null;
  errors?: GraphQLErrorBody[];
}

export interface GraphQLResponse<T = Record<string, unknown>> {
  readonly status: number;
  /** The response's `x-request-id`. */
  readonly requestId: string | null;
  readonly body: GraphQLResponseBody<T>;
  /** The body as sent, for byte-for-byte comparisons. */
  readonly text: string;
  readonly response: Response;
}

/** A server's base URL (`http://host:port`), or an app answering requests in process. */
export type GraphQLTarget = string | { fetch(request: Request): Promise<Response> | Response };

/** POSTs one query; any status, the body parsed (a body that is not JSON fails with its text). */
export async function postGraphQL<T = Record<string, unknown>>(
  target: GraphQLTarget,
  query: string,
  variables?: Variables,
  headers: Readonly<Record<string, string>> = {},
  signal?: AbortSignal,
): Promise<GraphQLResponse<T>> {
  const url = typeof target === 'string' ? `${target}/graphql` : 'http://localhost/graphql';
  const request = new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
    signal: signal ?? null,
  });
  const response = typeof target === 'string' ? await fetch(request) : await target.fetch(request);
  const text = await response.text();
  try {
    return { status: response.status, requestId: response.headers.get('x-request-id'), body: JSON.parse(text) as GraphQLResponseBody<T>, text, response };
  } catch {
    throw new Error(`HTTP ${response.status} from ${url}: not a JSON body: ${text.slice(0, 500)}`);
  }
}

/** The data of a query that must answer 200 without errors; fails with what the server said otherwise. */
export async function graphqlData<T = Record<string, unknown>>(target: GraphQLTarget, query: string, variables?: Variables, signal?: AbortSignal): Promise<T> {
  const { status, body } = await postGraphQL<T>(target, query, variables, {}, signal);
  if (status !== 200 || body.errors !== undefined || body.data === undefined || body.data === null) {
    throw new Error(`query failed (HTTP ${status}): ${JSON.stringify(body).slice(0, 2000)}\n${query}`);
  }
  return body.data;
}

/** The error codes of an answer, in order. */
export function codes(body: GraphQLResponseBody<unknown>): string[] {
  return (body.errors ?? []).map((e) => String(e.extensions?.['code']));
}

/**
 * POST /graphql over a connection of its own that closes after the response (no keep-alive): each request is a new
 * connection, which is what a server of several processes hands to its workers in turn.
 */
export function postGraphQLOnce(baseUrl: string, query: string): Promise<{ status: number; body: GraphQLResponseBody }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${baseUrl}/graphql`, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', Connection: 'close' } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as GraphQLResponseBody }));
    });
    request.on('error', reject);
    request.end(JSON.stringify({ query }));
  });
}
