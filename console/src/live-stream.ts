// A GraphQL subscription over Server-Sent Events (POST /graphql, Accept: text/event-stream), kept open: the server
// sends the current state first, then each change. `live` once the stream answers; `down` when it cannot be opened
// (503 on the embedded dev database, 429 over the caps, a network error, a GraphQL error) or goes silent, and then it
// is retried with back-off (2 s doubling to 60 s). A stream the server completes (the token expired, the server
// drains) is opened again at once, with the session's current token. The caller polls while the state is not `live`.
import { signInAgain } from './oidc-client.ts';
import { readSession } from './session.ts';
import { signInSettings } from './sign-in-settings.ts';
import { SseParser } from './sse-parser.ts';

export type LiveState = 'connecting' | 'live' | 'down';

export interface LiveHandlers<T> {
  readonly onData: (data: T) => void;
  readonly onState: (state: LiveState) => void;
}

const FIRST_RETRY_MS = 2000;
const MAX_RETRY_MS = 60_000;
/** The server sends a heartbeat at least every 15 s: this long without a byte means the connection is gone. */
const SILENCE_MS = 40_000;
/** The first heartbeat comes before the subscription has read its state, which may still fail (a backend without
 * live updates answers SERVICE_UNAVAILABLE then): a stream that only beat is taken as up after this long. */
const SETTLE_MS = 1500;

/** Opens the subscription and keeps it open until the returned function is called. */
export function openLiveStream<T>(query: string, variables: Record<string, unknown>, handlers: LiveHandlers<T>): () => void {
  let stopped = false;
  let controller: AbortController | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let delayMs = FIRST_RETRY_MS;
  let state: LiveState = 'connecting';
  const setState = (next: LiveState): void => {
    // A stopped stream reports nothing more (its page has gone, another may be reporting now).
    if (stopped || next === state) return;
    state = next;
    handlers.onState(next);
  };
  const connect = (): void => {
    retry = null;
    if (stopped) return;
    controller = new AbortController();
    let alive = false;
    let settle: ReturnType<typeof setTimeout> | null = null;
    const onAlive = (): void => {
      if (settle !== null) clearTimeout(settle);
      settle = null;
      alive = true;
      delayMs = FIRST_RETRY_MS;
      setState('live');
    };
    const onBeat = (): void => {
      if (!alive && settle === null) settle = setTimeout(onAlive, SETTLE_MS);
    };
    readStream(query, variables, controller, { onAlive, onBeat }, handlers.onData).then(
      () => {
        if (settle !== null) clearTimeout(settle);
        // Completed by the server: open again at once if it had answered, else back off as after a failure.
        if (alive) connect();
        else failed();
      },
      () => {
        if (settle !== null) clearTimeout(settle);
        failed();
      },
    );
  };
  const failed = (): void => {
    if (stopped) return;
    setState('down');
    retry = setTimeout(connect, delayMs);
    delayMs = Math.min(delayMs * 2, MAX_RETRY_MS);
  };
  connect();
  return () => {
    stopped = true;
    if (retry !== null) clearTimeout(retry);
    controller?.abort();
  };
}

function headers(): Record<string, string> {
  const result: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  const settings = signInSettings();
  if (settings.mode !== 'oidc') return result;
  const session = readSession();
  if (session === null) {
    void signInAgain(settings);
    throw new Error('signing in again');
  }
  result['Authorization'] = `Bearer ${session.accessToken}`;
  return result;
}

interface Liveness {
  /** A push without errors: the subscription is up. */
  readonly onAlive: () => void;
  /** A heartbeat: the connection is up. */
  readonly onBeat: () => void;
}

async function readStream<T>(query: string, variables: Record<string, unknown>, controller: AbortController, liveness: Liveness, onData: (data: T) => void): Promise<void> {
  const response = await fetch('/graphql', { method: 'POST', headers: headers(), body: JSON.stringify({ query, variables }), signal: controller.signal, cache: 'no-store' });
  const settings = signInSettings();
  if (response.status === 401 && settings.mode === 'oidc') void signInAgain(settings);
  if (!response.ok || !(response.headers.get('content-type') ?? '').includes('text/event-stream') || response.body === null) {
    throw new Error(`live updates unavailable (HTTP ${response.status})`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  let silence = setTimeout(() => controller.abort(), SILENCE_MS);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      clearTimeout(silence);
      silence = setTimeout(() => controller.abort(), SILENCE_MS);
      for (const event of parser.push(value)) {
        if (event.event === 'complete') return;
        if (event.event === 'heartbeat') liveness.onBeat();
        if (event.event !== 'next') continue;
        const result = JSON.parse(event.data) as { data?: T | null; errors?: unknown[] };
        if (result.errors !== undefined && result.errors.length > 0) throw new Error('the subscription failed');
        liveness.onAlive();
        if (result.data !== undefined && result.data !== null) onData(result.data);
      }
    }
  } finally {
    clearTimeout(silence);
    controller.abort();
  }
}
