// What the processes of a server with SERVER_PROCESSES > 1 tell each other over node:cluster's IPC channel. The
// primary forks the workers and holds no port; each worker runs the whole server on the shared ports.

/** Worker → primary: the server listens and its shutdown handler is installed. */
export interface StartedMessage { readonly type: 'wi:started' }
/** Primary → worker: drain and exit, as SIGTERM does to a server of one process. */
export interface ShutdownMessage { readonly type: 'wi:shutdown' }
/** Worker → primary: a scrape of /q/metrics wants every worker's registry, aggregated. */
export interface MetricsRequestMessage { readonly type: 'wi:metrics-request'; readonly id: number }
/** Primary → worker: the aggregated exposition text, or why there is none. */
export interface MetricsResponseMessage {
  readonly type: 'wi:metrics-response';
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

/** Primary → a started worker: its registry, for the collection `id`. */
export interface MetricsCollectMessage { readonly type: 'wi:metrics-collect'; readonly id: number }
/** Worker → primary: its registry as prom-client's JSON, or why there is none. */
export interface MetricsPartMessage {
  readonly type: 'wi:metrics-part';
  readonly id: number;
  readonly metrics?: readonly unknown[];
  readonly error?: string;
}

export type ProcessMessage =
  | StartedMessage
  | ShutdownMessage
  | MetricsRequestMessage
  | MetricsResponseMessage
  | MetricsCollectMessage
  | MetricsPartMessage;

export function isProcessMessage<T extends ProcessMessage['type']>(message: unknown, type: T): message is Extract<ProcessMessage, { type: T }> {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}
