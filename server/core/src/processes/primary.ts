// The primary of a server of SERVER_PROCESSES > 1 processes (node:cluster): it forks the workers, which share the
// HTTP and HTTPS ports (the primary accepts connections and hands them out in turn) and each run the whole server
// with the settings of a server of one process; it holds no port and no connection of its own. It owns the signals:
// SIGTERM or SIGINT drains every worker and the primary exits once they all have, 0 when they all exited 0; a second
// signal kills them. A worker that fails before it listens fails the whole start (exit 1, as a server of one process
// would); a worker that exits later is replaced, up to MAX_RESPAWNS within RESPAWN_WINDOW_MS, then the primary stops
// the others and exits 1 so the orchestrator restarts the pod.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../logger.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { isProcessMessage, type ShutdownMessage } from './process-messages.js';

export const MAX_RESPAWNS = 5;
export const RESPAWN_WINDOW_MS = 60_000;

export interface PrimaryOptions {
  readonly processes: number;
  readonly logger: Logger;
  readonly exit?: (code: number) => void;
  readonly now?: () => number;
}

export function runPrimary(options: PrimaryOptions): void {
  const { processes, logger } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const now = options.now ?? (() => performance.now());
  const live = new Set<Worker>();
  const started = new Set<Worker>();
  const respawns: number[] = [];
  const metrics = new ClusterMetrics(logger);
  let stopping: { code: number } | null = null;
  let announced = false;

  const tellStop = (worker: Worker): void => {
    if (worker.isConnected()) worker.send({ type: 'wi:shutdown' } satisfies ShutdownMessage);
  };
  const stopAll = (code: number): void => {
    stopping ??= { code };
    stopping.code = Math.max(stopping.code, code);
    if (live.size === 0) exit(stopping.code);
    for (const worker of live) tellStop(worker);
  };
  const onStarted = (worker: Worker): void => {
    started.add(worker);
    if (stopping !== null) tellStop(worker);
    else if (!announced && started.size === processes) {
      announced = true;
      logger.info({ processes, workers: [...started].map((w) => w.process.pid) }, 'server processes started');
    }
  };
  const fork = (): void => {
    const worker = cluster.fork();
    live.add(worker);
    worker.on('message', (message: unknown) => {
      if (isProcessMessage(message, 'wi:started')) onStarted(worker);
      else if (isProcessMessage(message, 'wi:metrics-request')) metrics.collect(worker, message, started);
      else if (isProcessMessage(message, 'wi:metrics-part')) metrics.part(worker, message);
    });
  };
  const tooManyRespawns = (): boolean => {
    const at = now();
    while (respawns.length > 0 && (respawns[0] ?? at) <= at - RESPAWN_WINDOW_MS) respawns.shift();
    respawns.push(at);
    return respawns.length > MAX_RESPAWNS;
  };
  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    const hadStarted = started.delete(worker);
    metrics.gone(worker);
    const facts = { worker: worker.id, pid: worker.process.pid, code, signal };
    if (stopping !== null) {
      if (code !== 0) stopping.code = 1;
      logger.info(facts, 'server process exited');
      if (live.size === 0) exit(stopping.code);
    } else if (!hadStarted) {
      logger.fatal(facts, 'a server process failed to start');
      stopAll(1);
    } else if (tooManyRespawns()) {
      logger.fatal({ ...facts, respawns: MAX_RESPAWNS, windowMs: RESPAWN_WINDOW_MS }, 'server processes keep exiting: stopping');
      stopAll(1);
    } else {
      logger.error(facts, 'a server process exited: starting another');
      fork();
    }
  });
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: killing the server processes');
      for (const worker of live) worker.process.kill('SIGKILL');
      exit(1);
      return;
    }
    signalled = true;
    logger.info({ signal, processes: live.size }, 'shutting down');
    stopAll(0);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  for (let i = 0; i < processes; i++) fork();
}
