// HTTP_MAX_REQUESTS_PER_CLIENT on POST /graphql: a client is the last entry of HTTP_CLIENT_ADDRESS_HEADER (the one
// the nearest trusted proxy appended), else the socket address; a request with neither (in-process) is not counted.
import type { IncomingMessage } from 'node:http';
import { ClientRequestLimit, clientKey } from '../client-limit.js';
import type { CoreConfig } from '../config.js';
import { ErrorCode } from '../errors.js';
import type { RequestState } from '../request-state.js';
import { graphqlError } from './responses.js';

/** A release function for a request that may run, or null: the client is at its bound. */
export type Admission = (() => void) | null;

export class PerClientLimit {
  private readonly limit: ClientRequestLimit;
  private readonly addressHeader: string | null;
  private readonly max: number;

  constructor(http: CoreConfig['http']) {
    this.limit = new ClientRequestLimit(http.maxRequestsPerClient);
    this.addressHeader = http.clientAddressHeader;
    this.max = http.maxRequestsPerClient;
  }

  /** In-process: `address` is what the caller said about the peer. */
  admitFetch(headers: Headers, address: string | null | undefined): Admission {
    return this.limit.acquire(this.clientOfFetch(headers, address));
  }

  admitNode(req: IncomingMessage): Admission {
    return this.limit.acquire(this.clientOfNode(req));
  }

  /** The client a node:http request counts against (as admitNode counts it): the subscription caps count the same way. */
  clientOfNode(req: IncomingMessage): string | null {
    const header = this.addressHeader === null ? undefined : req.headers[this.addressHeader];
    return clientKey(Array.isArray(header) ? header.join(',') : header, req.socket.remoteAddress);
  }

  clientOfFetch(headers: Headers, address: string | null | undefined): string | null {
    return clientKey(this.addressHeader === null ? null : headers.get(this.addressHeader), address);
  }

  /** The 429 of a client at its bound, its code recorded in the request's state. */
  refuse(state: RequestState): Response {
    state.errorCodes.push(ErrorCode.TOO_MANY_REQUESTS);
    return graphqlError(
      429,
      `Too many requests in flight from this client: at most ${this.max} at a time (HTTP_MAX_REQUESTS_PER_CLIENT). Wait for an answer before sending the next request, or retry after the Retry-After delay.`,
      ErrorCode.TOO_MANY_REQUESTS,
      { 'Retry-After': '1' },
    );
  }
}
