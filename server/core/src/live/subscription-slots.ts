// GRAPHQL_MAX_SUBSCRIPTIONS and GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT: every event stream holds one slot of each for
// its lifetime (not a slot of HTTP_MAX_REQUESTS_PER_CLIENT, which it holds only while it is set up). Beyond either
// bound the request is refused before anything of it runs, with TOO_MANY_SUBSCRIPTIONS and a message naming the key.
import { ClientRequestLimit } from '../client-limit.js';
import { ErrorCode } from '../errors.js';
import { graphqlError } from '../http/responses.js';

export type SlotRelease = () => void;

export class SubscriptionSlots {
  private open = 0;
  private readonly perClient: ClientRequestLimit;

  constructor(
    private readonly max: number,
    private readonly maxPerClient: number,
  ) {
    this.perClient = new ClientRequestLimit(maxPerClient);
  }

  get active(): number {
    return this.open;
  }

  /** A release function (idempotent), or the response refusing the stream. `client` null: in-process, counted in all only. */
  acquire(client: string | null): SlotRelease | Response {
    if (this.open >= this.max) return refusal(`At most ${this.max} subscriptions are open on this server at a time (GRAPHQL_MAX_SUBSCRIPTIONS), and all are taken. Retry after the Retry-After delay.`);
    const releaseClient = this.perClient.acquire(client);
    if (releaseClient === null) {
      return refusal(`At most ${this.maxPerClient} subscriptions may be open from one client at a time (GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT): close one before opening another (one stream can watch many runs with a filter).`);
    }
    this.open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
      releaseClient();
    };
  }
}

function refusal(message: string): Response {
  return graphqlError(429, message, ErrorCode.TOO_MANY_SUBSCRIPTIONS, { 'Retry-After': '5' });
}
