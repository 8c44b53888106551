// A worker's side of a server of several processes. The primary owns the signals: a terminal's Ctrl+C reaches every
// process of the group and the orchestrator's SIGTERM only the primary, so a worker ignores both and drains when the
// primary tells it to, or when the primary is gone (its IPC channel closes).
import cluster from 'node:cluster';
import { isProcessMessage, type StartedMessage } from './process-messages.js';

let stopRequested = false;
let onStop: (() => void) | null = null;

/** At a worker's start, before the server is built: a stop that comes before the server listens ends the process. */
export function followPrimary(): void {
  if (!cluster.isWorker) return;
  const stop = (): void => {
    if (onStop !== null) onStop();
    else if (!stopRequested) process.exit(0);
    stopRequested = true;
  };
  process.on('message', (message: unknown) => {
    if (isProcessMessage(message, 'wi:shutdown')) stop();
  });
  process.on('disconnect', stop);
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
}

/** The worker's graceful shutdown: run on the primary's word (a second word exits at once, as a second signal does). */
export function onPrimaryStop(handler: () => void): () => void {
  onStop = handler;
  return () => {
    if (onStop === handler) onStop = null;
  };
}

/** Tells the primary this worker listens and drains on its word. */
export function announceStarted(): void {
  if (cluster.isWorker) process.send?.({ type: 'wi:started' } satisfies StartedMessage);
}
