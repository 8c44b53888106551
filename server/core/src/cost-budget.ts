// GRAPHQL_MAX_COST_IN_FLIGHT: a server-wide budget of rows in flight. GRAPHQL_MAX_COST bounds one request, but
// ten heavy requests at once still hold ten times its rows (and their responses) in memory together; here a
// request holds its priced cost from before execution until its response has been written.
//
// Order: cheapest first, oldest first among equal costs. A request that fits passes at once unless a waiter costs no
// more than it does; otherwise it waits, and released rows go to the cheapest waiter that fits. So a page of the
// console is never stuck behind heavy requests from many clients (under a strict FIFO it waited for every one of
// them); in exchange a heavy request can wait while cheaper ones keep the budget busy, at most
// GRAPHQL_COST_QUEUE_TIMEOUT_MS, after which it ends with CostQueueTimeout. A request that reads no rows (cost 0:
// __typename, introspection) holds nothing and always passes.

/** The wait for room in the budget lasted longer than the queue timeout. */
export class CostQueueTimeout extends Error {
  override readonly name = 'CostQueueTimeout';
}

interface Waiter {
  readonly cost: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export class CostBudget {
  private held = 0;
  private queuedCost = 0;
  private readonly queue: Waiter[] = [];

  /**
   * `capacity` 0: no bound (every acquire passes at once). Otherwise every cost acquired must be at most
   * `capacity` (the configuration guarantees GRAPHQL_MAX_COST ≤ GRAPHQL_MAX_COST_IN_FLIGHT).
   */
  constructor(
    readonly capacity: number,
    private readonly queueTimeoutMs: number,
  ) {}

  /** Rows held by admitted requests. */
  get inFlight(): number {
    return this.held;
  }

  /** Rows of the requests waiting for admission. */
  get waitingRows(): number {
    return this.queuedCost;
  }

  /** Requests waiting for admission. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * The fast path, without allocation: true when `cost` is admitted now (the caller must release it), false
   * when the caller has to wait().
   */
  tryAcquire(cost: number): boolean {
    if (this.capacity === 0 || cost <= 0) return true;
    const cheapestWaiter = this.queue[0];
    if ((cheapestWaiter !== undefined && cheapestWaiter.cost <= cost) || this.held + cost > this.capacity) return false;
    this.held += cost;
    return true;
  }

  /**
   * Waits until `cost` is admitted, cheapest first (then the caller must release it); rejects with
   * CostQueueTimeout after the queue timeout, or with the signal's reason when it aborts (nothing held then).
   */
  wait(cost: number, signal?: AbortSignal): Promise<void> {
    if (this.tryAcquire(cost)) return Promise.resolve();
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { cost, resolve, reject, timer: undefined, signal, onAbort: undefined };
      waiter.timer = setTimeout(() => this.drop(waiter, new CostQueueTimeout(`waited ${this.queueTimeoutMs} ms for ${cost} rows of the in-flight budget`)), this.queueTimeoutMs);
      if (signal !== undefined) {
        waiter.onAbort = () => this.drop(waiter, signal.reason);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.enqueue(waiter);
      this.queuedCost += cost;
    });
  }

  /** Gives back rows acquired before and admits the waiters that now fit, oldest first. */
  release(cost: number): void {
    if (this.capacity === 0 || cost <= 0) return;
    this.held -= cost;
    this.admit();
  }

  /** Into the queue behind every waiter that costs no more (the queue stays ordered by cost, then age). */
  private enqueue(waiter: Waiter): void {
    let at = this.queue.length;
    while (at > 0 && (this.queue[at - 1] as Waiter).cost > waiter.cost) at--;
    this.queue.splice(at, 0, waiter);
  }

  private admit(): void {
    for (let head = this.queue[0]; head !== undefined && this.held + head.cost <= this.capacity; head = this.queue[0]) {
      this.queue.shift();
      this.queuedCost -= head.cost;
      this.held += head.cost;
      this.settle(head);
      head.resolve();
    }
  }

  private drop(waiter: Waiter, reason: unknown): void {
    const index = this.queue.indexOf(waiter);
    if (index === -1) return;
    this.queue.splice(index, 1);
    this.queuedCost -= waiter.cost;
    this.settle(waiter);
    waiter.reject(reason);
  }

  private settle(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
  }
}
