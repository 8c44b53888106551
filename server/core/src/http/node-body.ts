// Request bodies node:http frames by their Content-Length, read before a POST /graphql takes a slot of
// HTTP_MAX_REQUESTS_PER_CLIENT: a client that trickles its body holds no slot while HTTP_BODY_TIMEOUT_MS runs out.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { BufferedResponse } from '../buffered-response.js';
import { TEXT_TYPE } from './responses.js';

const DIGITS = /^\d+$/;

/** A body framed by its Content-Length, within HTTP_MAX_BODY_BYTES (others are yoga's to read and refuse). */
export function framedWithin(headers: IncomingHttpHeaders, maxBodyBytes: number): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] === undefined && length !== undefined && DIGITS.test(length) && Number(length) <= maxBodyBytes;
}

/** The whole body; null when the client went away before its end. */
export function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let ended = false;
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      ended = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    req.once('error', () => resolve(null));
    req.once('close', () => {
      if (!ended) resolve(null);
    });
  });
}

/** The answer to a request whose connection closed before it was read: only recorded (nobody is left to read it). */
export function wentAway(): BufferedResponse {
  return { status: 400, statusText: '', headers: { 'content-type': TEXT_TYPE }, body: Buffer.from('Bad request: the client went away before its request was read.\n') };
}
