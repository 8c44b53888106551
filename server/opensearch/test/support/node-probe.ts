// What a bounded-work test reads of the shared OpenSearch node while its requests run: the JVM heap, sampled every few
// milliseconds from GET /_nodes/_local/stats/jvm,breaker (BackendMemory of outcomes.ts), and the trip counts of the
// request and parent circuit breakers before and after. The node is shared by every test file, and one of them lowers
// the request breaker's limit on purpose (search-limits.test.ts): that would trip the breaker on the measured
// requests' aggregations and count in their window. So a file that measures holds a lease while it does
// (holdMeasuringLease), and the file that trips the breaker waits until no live process holds one (awaitNoMeasuring).
// A lease is a small file in the OS temp directory, named by the process that holds it, removed when released; one
// left by a process that died is ignored. And what the node answered a client (recordExchanges), raw: a reader's
// errors are summed up in one line, the node's error bodies are what a test reports.
import { type Client, errors } from '@opensearch-project/opensearch';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackendMemory } from '@workflow-index/testkit';

export interface BreakerTrips {
  readonly request: number;
  readonly parent: number;
}

export interface NodeStats {
  readonly heapUsed: number;
  readonly heapMax: number;
  readonly trips: BreakerTrips;
}

interface StatsBody {
  readonly nodes: Readonly<
    Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } }; breakers: Record<'request' | 'parent', { tripped: number }> }>
  >;
}

/** The local node's heap and breaker trip counts. */
export async function nodeStats(client: Client): Promise<NodeStats> {
  const response = await client.transport.request({ method: 'GET', path: '/_nodes/_local/stats/jvm,breaker' }, { requestTimeout: 10_000, maxRetries: 0 });
  const node = Object.values((response.body as StatsBody).nodes)[0];
  if (node === undefined) throw new Error('GET /_nodes/_local/stats answered no node');
  return {
    heapUsed: node.jvm.mem.heap_used_in_bytes,
    heapMax: node.jvm.mem.heap_max_in_bytes,
    trips: { request: node.breakers.request.tripped, parent: node.breakers.parent.tripped },
  };
}

/** What the node did while `run` ran. */
export interface NodeWindow<T> {
  readonly value: T;
  /** The most heap in use at any sample (the samples before and after included). */
  readonly peakHeap: number;
  readonly heapMax: number;
  /** Trips counted while it ran. */
  readonly trips: BreakerTrips;
}

export class NodeProbe {
  readonly #memory: BackendMemory;

  constructor(private readonly client: Client) {
    this.#memory = new BackendMemory(async () => [(await nodeStats(client)).heapUsed]);
  }

  readable(): Promise<boolean> {
    return this.#memory.readable();
  }

  async during<T>(run: () => Promise<T>): Promise<NodeWindow<T>> {
    const before = await nodeStats(this.client);
    const { value, peak } = await this.#memory.during(run);
    const after = await nodeStats(this.client);
    return {
      value,
      peakHeap: Math.max(before.heapUsed, peak, after.heapUsed),
      heapMax: after.heapMax,
      trips: { request: after.trips.request - before.trips.request, parent: after.trips.parent - before.trips.parent },
    };
  }
}

const LEASES = join(tmpdir(), 'workflow-index-test-node-measuring');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Declares that this process measures the node's breakers until the returned release is called. */
export function holdMeasuringLease(): () => void {
  mkdirSync(LEASES, { recursive: true });
  const file = join(LEASES, `${process.pid}-${randomBytes(4).toString('hex')}`);
  writeFileSync(file, new Date().toISOString());
  return () => rmSync(file, { force: true });
}

/** The leases of live processes other than this one. */
function otherLeases(): string[] {
  let names: string[];
  try {
    names = readdirSync(LEASES);
  } catch {
    return [];
  }
  return names.filter((name) => {
    const pid = Number(name.split('-')[0]);
    return Number.isInteger(pid) && pid !== process.pid && alive(pid);
  });
}

/** Waits until no other live process measures the node (polling every 250 ms), at most `timeoutMs`. */
export async function awaitNoMeasuring(timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (let held = otherLeases(); held.length > 0; held = otherLeases()) {
    if (performance.now() > deadline) throw new Error(`other test processes still measure the node's breakers after ${timeoutMs} ms: ${held.join(', ')} in ${LEASES}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** One request a recorded client sent, and what came back. */
export interface Exchange {
  readonly path: string;
  readonly body: Readonly<Record<string, unknown>> | undefined;
  /** The HTTP status the node answered; none when it did not answer (the client gave up, or could not connect). */
  status?: number;
  /** The body the node answered, an error's included. */
  response?: unknown;
  /** The body of an error the node answered. */
  error?: unknown;
  /** The client's error when the node did not answer. */
  failure?: string;
}

type TransportRequest = (params: { path: string; body?: unknown }, options?: unknown) => Promise<{ statusCode: number | null; body: unknown }>;

/**
 * The requests `client` sends from now on, with what the node answered to each: the last `keep` of them, and with
 * `bodies: false` without the request and response bodies (an error's body is kept).
 */
export function recordExchanges(client: Client, options: { keep?: number; bodies?: boolean } = {}): Exchange[] {
  const keep = options.keep ?? Number.POSITIVE_INFINITY;
  const bodies = options.bodies ?? true;
  const exchanges: Exchange[] = [];
  const transport = client.transport as unknown as { request: TransportRequest };
  const request = transport.request.bind(client.transport);
  transport.request = async (params, options) => {
    const exchange: Exchange = { path: params.path, body: bodies ? (params.body as Exchange['body']) : undefined };
    exchanges.push(exchange);
    if (exchanges.length > keep) exchanges.shift();
    try {
      const response = await request(params, options);
      exchange.status = response.statusCode ?? undefined;
      if (bodies) exchange.response = response.body;
      return response;
    } catch (error) {
      if (error instanceof errors.ResponseError) {
        exchange.status = error.statusCode;
        exchange.error = error.body;
        exchange.response = error.body;
      } else {
        exchange.failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
      throw error;
    }
  };
  return exchanges;
}

/** What the node answered, in short: the status and timed_out, or the status and the error's root cause. */
export function nodeAnswer(exchange: Exchange | undefined): string {
  if (exchange === undefined) return 'nothing';
  if (exchange.status === undefined) return `no answer (${exchange.failure ?? 'pending'})`;
  if (exchange.error !== undefined) {
    const cause = (exchange.error as { error?: { root_cause?: { type?: string; reason?: string }[] } }).error?.root_cause?.[0];
    return `${exchange.status} ${cause?.type ?? JSON.stringify(exchange.error).slice(0, 300)}`;
  }
  return `${exchange.status} timed_out: ${String((exchange.response as { timed_out?: boolean } | undefined)?.timed_out)}`;
}
