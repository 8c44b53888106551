// Loads data for the current view: a new key cancels the request in flight; `tick` reloads (auto-refresh) while
// keeping the previous data on screen. A view whose query timed out (QUERY_TIMEOUT) is not reloaded by the ticker: it
// would time out again, at the same cost to the server; a new key (the user changed the view) loads again.
import { useEffect, useRef, useState } from 'preact/hooks';
import { GraphQLRequestError } from './graphql.ts';

export type Loaded<T> =
  | { readonly state: 'loading'; readonly data: T | null }
  | { readonly state: 'ready'; readonly data: T }
  | { readonly state: 'error'; readonly data: T | null; readonly message: string };

export function useQuery<T>(key: string, tick: number, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading', data: null });
  const timedOut = useRef<string | null>(null);
  useEffect(() => {
    if (timedOut.current === key) return undefined;
    const controller = new AbortController();
    setResult((previous) => ({ state: 'loading', data: previous.data }));
    load(controller.signal).then(
      (data) => {
        timedOut.current = null;
        if (!controller.signal.aborted) setResult({ state: 'ready', data });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const timeout = error instanceof GraphQLRequestError && error.timedOut;
        if (timeout) timedOut.current = key;
        const message = error instanceof Error ? error.message : String(error);
        setResult((previous) => ({ state: 'error', data: previous.data, message: timeout ? `${message} Auto-refresh is paused for this view.` : message }));
      },
    );
    return () => controller.abort();
    // `load` is a fresh closure every render; key and tick say when to reload.
  }, [key, tick]);
  return result;
}

/** Counts up every `seconds` (0: never), for auto-refresh. */
export function useTicker(seconds: number): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (seconds <= 0) return undefined;
    const timer = setInterval(() => setTick((t) => t + 1), seconds * 1000);
    return () => clearInterval(timer);
  }, [seconds]);
  return tick;
}

/** The current time, updated every `ms` while `active` (running bars grow to now). */
export function useNow(active: boolean, ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
  return now;
}
