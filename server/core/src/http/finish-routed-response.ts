import type { CoreConfig } from '../config.js';
import { compressResponse } from '../compression.js';
import { applyCors } from '../cors.js';

/**
 * A routed answer with its CORS headers, compressed when the client accepts it. Copied first: responses from
 * elsewhere may carry immutable headers. (POST /graphql answers are finished as bytes: buffered-response.ts.)
 */
export async function finishRoutedResponse(response: Response, request: Request, config: CoreConfig): Promise<Response> {
  const finished = new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
  applyCors(config.cors, request, finished.headers);
  return config.http.compression ? compressResponse(request, finished) : finished;
}
