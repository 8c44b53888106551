// Loads data for the current view: a new key cancels the request in flight; `tick` reloads (auto-refresh) while
// keeping the previous data on screen.
import { useEffect, useState } from 'preact/hooks';

export type Loaded<T> =
  | { readonly state: 'loading'; readonly data: T | null }
  | { readonly state: 'ready'; readonly data: T }
  | { readonly state: 'error'; readonly data: T | null; readonly message: string };

export function useQuery<T>(key: string, tick: number, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading', data: null });
  useEffect(() => {
    const controller = new AbortController();
    setResult((previous) => ({ state: 'loading', data: previous.data }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setResult({ state: 'ready', data });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setResult((previous) => ({ state: 'error', data: previous.data, message: error instanceof Error ? error.message : String(error) }));
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
