import type { BufferedResponse } from '../buffered-response.js';
import type { HotAnswer } from '../hot-operations.js';
import type { RequestState } from '../request-state.js';

/** The hot path's answer to a request body (hot-operations.ts), or null: yoga answers the request. */
export async function answerHot(hot: HotAnswer | null, bytes: Uint8Array, state: RequestState, answerType: string): Promise<BufferedResponse | null> {
  let params: unknown;
  try {
    params = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return null; // yoga words the error
  }
  const answered = hot === null ? null : await hot(params, state);
  // yoga's headers in yoga's order (the length is set when the answer is finished)
  return answered === null ? null : { status: 200, statusText: 'OK', headers: { 'content-type': answerType, 'content-length': '' }, body: Buffer.from(answered) };
}
