// The tests' GraphQL-over-SSE client: one POST /graphql with Accept: text/event-stream over a real node:http
// connection, the stream parsed as it arrives (comment lines are heartbeats, `event: next` carries a result,
// `event: complete` ends it). A refusal (any status but an event stream) is read whole as JSON.
import http from 'node:http';
import type { GraphQLResponseBody, Variables } from './graphql-request.js';

export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

export class SseStream {
  readonly events: SseEvent[] = [];
  /** Comment lines seen (the server's heartbeats, the opening one included). */
  heartbeats = 0;
  /** The connection ended (after `complete`, or cut). */
  ended = false;
  private buffer = '';
  private cursor = 0;
  private waiters: (() => void)[] = [];

  constructor(
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
    private readonly response: http.IncomingMessage,
    private readonly request: http.ClientRequest,
  ) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.receive(chunk));
    const end = (): void => {
      this.ended = true;
      this.notify();
    };
    response.on('end', end);
    response.on('close', end);
    response.on('error', end);
  }

  /** The next `next` event's result (in order), waiting for it; rejects after `timeoutMs` or when the stream ends first. */
  async nextResult<T = Record<string, unknown>>(timeoutMs = 10_000): Promise<GraphQLResponseBody<T>> {
    const event = await this.nextEvent(timeoutMs);
    if (event.event !== 'next') throw new Error(`expected a next event, got ${event.event}`);
    return JSON.parse(event.data) as GraphQLResponseBody<T>;
  }

  /** The next event of any kind not yet taken. */
  async nextEvent(timeoutMs = 10_000): Promise<SseEvent> {
    await this.until(() => this.cursor < this.events.length || this.ended, timeoutMs);
    const event = this.events[this.cursor];
    if (event === undefined) throw new Error('the stream ended');
    this.cursor += 1;
    return event;
  }

  /** Results until `predicate` holds for one (which is returned), in order. */
  async resultWhere<T = Record<string, unknown>>(predicate: (result: GraphQLResponseBody<T>) => boolean, timeoutMs = 10_000): Promise<GraphQLResponseBody<T>> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const result = await this.nextResult<T>(Math.max(1, deadline - performance.now()));
      if (predicate(result)) return result;
    }
  }

  /** Waits until `condition` holds (checked on every chunk), or fails after `timeoutMs`. */
  async until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!condition()) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting on the event stream (${this.events.length} events, ${this.heartbeats} heartbeats)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Results not yet taken by nextResult, parsed (the cursor moves past them). */
  drain<T = Record<string, unknown>>(): GraphQLResponseBody<T>[] {
    const rest = this.events.slice(this.cursor).filter((e) => e.event === 'next');
    this.cursor = this.events.length;
    return rest.map((e) => JSON.parse(e.data) as GraphQLResponseBody<T>);
  }

  close(): void {
    this.request.destroy();
    this.response.destroy();
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      this.parse(block);
    }
    this.notify();
  }

  private parse(block: string): void {
    let event = 'message';
    const data: string[] = [];
    let fields = 0;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.heartbeats += 1;
      else if (line.startsWith('event:')) {
        event = line.slice(6).trim();
        fields += 1;
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
        fields += 1;
      }
    }
    if (fields > 0) this.events.push({ event, data: data.join('\n') });
  }

  private notify(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

export interface SseRefusal {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: GraphQLResponseBody;
}

/** Opens a subscription (or any operation) as an event stream; a response that is not a stream is a refusal. */
export function subscribeSse(baseUrl: string, query: string, variables?: Variables, headers: Readonly<Record<string, string>> = {}): Promise<SseStream | SseRefusal> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}/graphql`, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers } }, (response) => {
      if ((response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        resolve(new SseStream(response.statusCode ?? 0, response.headers, response, request));
        return;
      }
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) as GraphQLResponseBody });
        } catch {
          reject(new Error(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`));
        }
      });
    });
    request.on('error', reject);
    request.end(JSON.stringify(variables === undefined ? { query } : { query, variables }));
  });
}

/** The stream, or a failure naming the refusal. */
export async function openSse(baseUrl: string, query: string, variables?: Variables, headers: Readonly<Record<string, string>> = {}): Promise<SseStream> {
  const opened = await subscribeSse(baseUrl, query, variables, headers);
  if (opened instanceof SseStream) return opened;
  throw new Error(`subscription refused: HTTP ${opened.status} ${JSON.stringify(opened.body)}`);
}
