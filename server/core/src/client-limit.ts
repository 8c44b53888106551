// HTTP_MAX_REQUESTS_PER_CLIENT: how many POST /graphql requests one client address may have in flight.
// One client sending in parallel would otherwise take the whole connection pool while others wait; past the
// bound it is answered 429 at once (cheap, no read) and retries, while other clients keep their share.

/** In-flight counts per client key; keys disappear when their last request ends, so the map stays small. */
export class ClientRequestLimit {
  private readonly inFlight = new Map<string, number>();

  /** `max` 0: no bound. */
  constructor(private readonly max: number) {}

  /** A release function for a request that may run, or null when the client is at its bound. A null client is not bounded. */
  acquire(client: string | null): (() => void) | null {
    if (this.max === 0 || client === null) return () => undefined;
    const count = this.inFlight.get(client) ?? 0;
    if (count >= this.max) return null;
    this.inFlight.set(client, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(client) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(client);
      else this.inFlight.set(client, left);
    };
  }

  /** Clients with a request in flight (for tests and debugging). */
  get clients(): number {
    return this.inFlight.size;
  }
}

/**
 * The client of a request: the last entry of the configured header (the one the nearest trusted proxy
 * appended), else the socket address; null when neither is known (in-process calls).
 */
export function clientKey(headerValue: string | null | undefined, socketAddress: string | null | undefined): string | null {
  if (headerValue !== null && headerValue !== undefined) {
    const last = headerValue.split(',').at(-1)?.trim() ?? '';
    if (last !== '') return last;
  }
  return socketAddress ?? null;
}
