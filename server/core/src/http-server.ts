import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { App } from './app.js';
import type { CoreConfig } from './config.js';
import type { Logger } from './logger.js';
import { onPrimaryStop } from './processes/worker-lifecycle.js';
import { clientErrorListener, requestTimeoutOptions } from './request-deadline.js';

export interface RunningServer {
  /** Bound HTTP port (the real one when HTTP_PORT is 0). */
  readonly httpPort: number;
  /** Bound HTTPS port, or null when TLS is not configured. */
  readonly httpsPort: number | null;
  /** Readiness goes DOWN, listeners stop accepting, in-flight requests finish (bounded by HTTP_SHUTDOWN_TIMEOUT_MS), then resolves. */
  close(): Promise<void>;
}

function listen(server: HttpServer, port: number, host: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    const onListening = (): void => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    if (host === null) server.listen(port, onListening);
    else server.listen(port, host, onListening);
  });
}

/** The app's handler, remembering each connection's latest response for the clientError listener. */
function trackingResponses(app: App): { handler: (req: IncomingMessage, res: ServerResponse) => void; responseOf: (socket: Duplex) => ServerResponse | undefined } {
  const responses = new WeakMap<Duplex, ServerResponse>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    responses.set(req.socket, res);
    app.handleNodeRequest(req, res);
  };
  return { handler, responseOf: (socket) => responses.get(socket) };
}

function harden(server: HttpServer, http: CoreConfig['http'], responseOf: (socket: Duplex) => ServerResponse | undefined): void {
  // Below typical load-balancer idle timeouts would cause resets; above them wastes sockets. Idle time between
  // requests does not count against the headers timeout (node:http starts it at a request's first byte).
  server.keepAliveTimeout = 65_000;
  server.on('clientError', clientErrorListener(http, responseOf));
}

/** Listens on HTTP_PORT and, with TLS_CERT_FILE + TLS_KEY_FILE, on HTTPS_PORT too. */
export async function startHttpServer(app: App, config: CoreConfig, logger: Logger): Promise<RunningServer> {
  const servers: HttpServer[] = [];
  const { handler, responseOf } = trackingResponses(app);
  const timeouts = requestTimeoutOptions(config.http);
  const http = createHttpServer(timeouts, handler);
  harden(http, config.http, responseOf);
  servers.push(http);
  let https: HttpServer | null = null;
  if (config.http.tlsCertFile !== null && config.http.tlsKeyFile !== null) {
    https = createHttpsServer({ cert: readFileSync(config.http.tlsCertFile), key: readFileSync(config.http.tlsKeyFile), ...timeouts }, handler);
    harden(https, config.http, responseOf);
    servers.push(https);
  }
  let httpPort: number;
  let httpsPort: number | null = null;
  try {
    httpPort = await listen(http, config.http.port, config.http.host);
    if (https !== null) httpsPort = await listen(https, config.http.httpsPort, config.http.host);
  } catch (error) {
    for (const s of servers) s.close();
    throw error;
  }
  logger.info({ httpPort, httpsPort, host: config.http.host ?? 'all interfaces' }, 'listening');
  if (config.auth.mode === 'none' && config.mode === 'production') {
    logger.warn('AUTH_MODE is none: every client that reaches this service reads every run of every namespace, payloads included. Set AUTH_MODE=oidc to require sign-in (README, Access control).');
  }

  let closing: Promise<void> | null = null;
  const close = async (): Promise<void> => {
    app.startDraining();
    const timeoutMs = config.http.shutdownTimeoutMs;
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            const force = setTimeout(() => {
              logger.warn({ timeoutMs }, 'shutdown: in-flight requests did not finish in time; closing their connections');
              server.closeAllConnections();
            }, timeoutMs);
            force.unref();
            // Keep-alive connections with no request in flight would otherwise hold close() open, including the
            // ones whose last response finishes while draining: sweep them until the server has closed.
            const sweep = setInterval(() => server.closeIdleConnections(), 50);
            sweep.unref();
            // Stops accepting; resolves once every connection has ended.
            server.close(() => {
              clearTimeout(force);
              clearInterval(sweep);
              resolve();
            });
            server.closeIdleConnections();
          }),
      ),
    );
    logger.info('http servers closed');
  };
  return {
    httpPort,
    httpsPort,
    close: () => (closing ??= close()),
  };
}

/**
 * SIGTERM/SIGINT (in a worker of several server processes: the primary's word): stop accepting, finish in-flight requests, run `cleanup` (close the reader),
 * then let the process exit. A second signal exits at once. Returns a function that removes the handlers.
 */
export function installGracefulShutdown(
  running: RunningServer,
  cleanup: () => Promise<void>,
  logger: Logger,
  options: { readonly exit?: (code?: number) => void; readonly forceExitAfterMs?: number } = {},
): () => void {
  const exit = options.exit ?? ((code?: number) => process.exit(code));
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: exiting now');
      exit(1);
      return;
    }
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    running
      .close()
      .then(cleanup)
      .then(
        () => {
          logger.info('shutdown complete');
          process.exitCode = 0;
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exitCode = 1;
        },
      )
      .finally(() => {
        // Whatever still holds the event loop (a stuck client, a timer) must not keep a terminated pod alive.
        setTimeout(() => exit(), options.forceExitAfterMs ?? 1000).unref();
      });
  };
  // A worker of several server processes drains on the primary's word instead (processes/worker-lifecycle.ts).
  if (cluster.isWorker) return onPrimaryStop(() => onSignal('SIGTERM'));
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
