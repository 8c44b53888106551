// Load generation of both query benchmarks (bench:query on either backend): GraphQL requests at saturation
// (autocannon, rotating through the variants) and at a fixed rate (open loop), and the floor loop that runs the
// backend's own statements or searches per variant at the same concurrency. The measurement rules: latencies at full
// precision, only answers with data counted, the fixed rate timed from each request's schedule.
import autocannon from 'autocannon';
import http from 'node:http';

export interface Measurement { readonly rps: number; readonly p50Ms: number; readonly p99Ms: number; readonly requests: number; readonly failures: number }

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

function summary(latencies: number[], seconds: number, failures: number): Measurement {
  latencies.sort((a, b) => a - b);
  return { rps: round(latencies.length / seconds, 1), p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)), requests: latencies.length, failures };
}

/** autocannon against /graphql at `connections` concurrent connections, rotating through the request bodies. */
export async function measureHttp(baseUrl: string, bodies: readonly string[], options: { connections: number; duration: number; headers?: Readonly<Record<string, string>> }): Promise<Measurement> {
  let next = 0;
  const latencies: number[] = [];
  let failures = 0;
  // autocannon calls onResponse (the body) and then emits 'response' (the latency) synchronously for the same
  // response (httpClient.js, kOnMessageComplete), so the flag says whether the latency is of an answer with data.
  let failed = false;
  const instance = autocannon({
    url: `${baseUrl}/graphql`,
    connections: options.connections,
    duration: options.duration,
    requests: [{
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] as string }),
      onResponse: (status, body) => {
        failed = status !== 200 || body.includes('"errors"');
        if (status === 200 && failed) failures++; // other statuses are autocannon's non2xx
      },
    }],
  });
  (instance as unknown as { on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void })
    .on('response', (_client, status, _bytes, ms) => {
      if (status === 200 && !failed) latencies.push(ms);
    });
  const result = await instance;
  return summary(latencies, result.duration, failures + result.errors + result.timeouts + result.non2xx);
}

/** One request every 1000/rate ms, each on a keep-alive connection of its own while it runs (open loop); `headers` on each (e.g. Authorization). */
export async function measureFixedRate(baseUrl: string, bodies: readonly string[], rate: number, duration: number, headers: Readonly<Record<string, string>> = {}): Promise<Measurement> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(`${baseUrl}/graphql`);
  const latencies: number[] = [];
  let failures = 0;
  const total = Math.round(rate * duration);
  const interval = 1000 / rate;
  const began = performance.now();
  const inFlight: Array<Promise<void>> = [];
  const send = (body: string, scheduled: number): Promise<void> => new Promise((resolve) => {
    const request = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        if (response.statusCode === 200 && !text.includes('"errors"')) latencies.push(performance.now() - scheduled);
        else failures++;
        resolve();
      });
    });
    request.on('error', () => {
      failures++;
      resolve();
    });
    request.end(body);
  });
  for (let i = 0; i < total; i++) {
    const scheduled = began + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(bodies[i % bodies.length] as string, scheduled));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return summary(latencies, (performance.now() - began) / 1000, failures);
}

/** The floor: `run(variant)` (the hand-written searches of one request) in `concurrency` loops for `duration` s. */
export async function measureLoop<V>(variants: readonly V[], run: (variant: V) => Promise<void>, concurrency: number, duration: number): Promise<Measurement> {
  let next = 0;
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + duration * 1000;
  const began = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const variant = variants[next++ % variants.length] as V;
      const started = performance.now();
      try {
        await run(variant);
        latencies.push(performance.now() - started);
      } catch {
        failures++;
      }
    }
  }));
  return summary(latencies, (performance.now() - began) / 1000, failures);
}

/** The fixed-rate target of a row: p99 under 50 ms, the rate actually held (a server that falls behind sends
 * fewer requests than asked) and no failed request (fast error answers would pass the latency alone). */
export function holdsRate(row: { p99At100RpsMs: number; fixedRps: number; failures: number }, rate: number): boolean {
  return row.p99At100RpsMs < 50 && row.fixedRps >= 0.95 * rate && row.failures === 0;
}
