// One request's view of the Reader: its data reads run at most GRAPHQL_MAX_CONCURRENT_READS at a time.
// graphql-js starts every root field of a request at once, so 30 aliases would otherwise take 30 pool
// connections together and leave none to other clients; the rest of the request's reads wait their turn.
import type { Reader } from './reader.js';

/** At most `limit` tasks running; the others start in arrival order as running ones settle. */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never over-counts.
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    }
  }
}

/** The data methods of `reader` behind one ConcurrencyLimit; ping, stats and close go through unchanged. */
export function boundedReader(reader: Reader, limit: number): Reader {
  const slots = new ConcurrencyLimit(limit);
  return {
    getInstance: (id, options) => slots.run(() => reader.getInstance(id, options)),
    listInstances: (query) => slots.run(() => reader.listInstances(query)),
    getTask: (id, options) => slots.run(() => reader.getTask(id, options)),
    listTasks: (query) => slots.run(() => reader.listTasks(query)),
    tasksOfInstances: (ids, options) => slots.run(() => reader.tasksOfInstances(ids, options)),
    eventsOfInstances: (ids, options) => slots.run(() => reader.eventsOfInstances(ids, options)),
    countInstances: (filter, options) => slots.run(() => reader.countInstances(filter, options)),
    countTasks: (filter, options) => slots.run(() => reader.countTasks(filter, options)),
    countInstancesByStatus: (filter, options) => slots.run(() => reader.countInstancesByStatus(filter, options)),
    workflowStats: (query) => slots.run(() => reader.workflowStats(query)),
    topErrors: (query) => slots.run(() => reader.topErrors(query)),
    topFailingTasks: (query) => slots.run(() => reader.topFailingTasks(query)),
    ping: (timeoutMs) => reader.ping(timeoutMs),
    ingestionStats: () => reader.ingestionStats(),
    poolStats: () => reader.poolStats(),
    close: () => reader.close(),
    backendName: reader.backendName,
    workPrices: reader.workPrices,
  };
}
