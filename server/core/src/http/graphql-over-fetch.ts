// POST /graphql from a fetch Request (in-process callers, and node:http requests off the hot path's target): within
// the client's share of HTTP_MAX_REQUESTS_PER_CLIENT, the hot path answers a body it takes and yoga every other;
// the answer is finished as bytes (CORS, compression) and its rows of the cost budget given back.
import { bufferResponse, finishResponse, toFetchResponse } from '../buffered-response.js';
import type { BufferedResponse } from '../buffered-response.js';
import { hotRequestAnswerType } from '../hot-operations.js';
import type { RequestState } from '../request-state.js';
import { refusedCredentials, releaseCost } from './graphql-endpoint.js';
import type { GraphQLEndpoint } from './graphql-endpoint.js';
import { answerHot } from './hot-answer.js';
import type { PerClientLimit } from './per-client-limit.js';

/** `address`: the peer's address as the caller gave it (none in-process: the request is not counted). */
export async function postGraphQLOverFetch(endpoint: GraphQLEndpoint, perClient: PerClientLimit, request: Request, url: URL, address: string | null | undefined, state: RequestState): Promise<Response> {
  const facts = { origin: request.headers.get('origin'), acceptEncoding: request.headers.get('accept-encoding') };
  const release = perClient.admitFetch(request.headers, address);
  if (release === null) return toFetchResponse(await finishResponse(await bufferResponse(perClient.refuse(state)), endpoint.config, facts));
  try {
    return toFetchResponse(await finishResponse(await answerFetchGraphQL(endpoint, request, url, state), endpoint.config, facts));
  } finally {
    release();
    releaseCost(endpoint, state);
  }
}

/** yoga gets the bytes as they came, or their read's failure. */
async function answerFetchGraphQL(endpoint: GraphQLEndpoint, request: Request, url: URL, state: RequestState): Promise<BufferedResponse> {
  const refusal = await refusedCredentials(endpoint, request.headers.get('authorization'), state);
  if (refusal !== null) return bufferResponse(refusal);
  const { yoga, hot, config } = endpoint;
  const answerType = hot === null ? null : hotRequestAnswerType(`${url.pathname}${url.search}`, (name) => request.headers.get(name) ?? undefined, config.http.maxBodyBytes, false);
  if (answerType === null || request.body === null || request.signal.aborted) return bufferResponse(await yoga.fetch(request, { requestState: state }));
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    return bufferResponse(await yoga.fetch(withFailingBody(request, error), { requestState: state }));
  }
  const answered = bytes.byteLength > config.http.maxBodyBytes ? null : await answerHot(hot, bytes, state, answerType);
  return answered ?? bufferResponse(await yoga.fetch(withBody(request, bytes), { requestState: state }));
}

function withBody(request: Request, bytes: Uint8Array<ArrayBuffer>): Request {
  return new Request(request.url, { method: 'POST', headers: request.headers, body: bytes, signal: request.signal });
}

function withFailingBody(request: Request, error: unknown): Request {
  const failing = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(error) });
  return new Request(request.url, { method: 'POST', headers: request.headers, body: failing, signal: request.signal, duplex: 'half' } as RequestInit);
}
