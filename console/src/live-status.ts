// The state of the current page's live stream, shared with the header (its indicator, and the auto-refresh ticker,
// which stops while the stream is up: pushes replace polling).
import { useEffect, useRef, useState } from 'preact/hooks';
import { openLiveStream } from './live-stream.ts';
import type { LiveState } from './live-stream.ts';

let current: LiveState = 'connecting';
const listeners = new Set<(state: LiveState) => void>();

function setLiveState(state: LiveState): void {
  current = state;
  for (const listener of listeners) listener(state);
}

export function useLiveState(): LiveState {
  const [state, setState] = useState(current);
  useEffect(() => {
    listeners.add(setState);
    setState(current);
    return () => {
      listeners.delete(setState);
    };
  }, []);
  return state;
}

/** Subscribes while mounted (a new key: a new subscription); each push goes to the latest `onData`. */
export function useLive<T>(key: string, query: string, variables: Record<string, unknown>, onData: (data: T) => void): void {
  const latest = useRef(onData);
  latest.current = onData;
  useEffect(() => {
    setLiveState('connecting');
    const stop = openLiveStream<T>(query, variables, { onData: (data) => latest.current(data), onState: setLiveState });
    return () => {
      stop();
      setLiveState('connecting');
    };
    // The key names the subscription; query and variables follow from it.
  }, [key]);
}
