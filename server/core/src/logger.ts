import cluster from 'node:cluster';
import { destination as fileDestination, pino } from 'pino';
import type { DestinationStream, Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';
import type { CoreConfig } from './config.js';
import { requestLogFields } from './request-context.js';

export type Logger = PinoLogger;

/**
 * JSON lines in production (what log collectors parse), pino-pretty in development. `destination`
 * defaults to stdout (asynchronous, flushed at exit); tests pass their own stream to read the entries.
 */
export function createLogger(config: Pick<CoreConfig, 'log'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.log.level,
    // A worker of several server processes (SERVER_PROCESSES) names itself on each line.
    base: cluster.isWorker ? { service: 'workflow-index', worker: cluster.worker?.id } : { service: 'workflow-index' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    // Inside a request every line carries its requestId, whichever logger (process or child) writes it.
    mixin: requestLogFields,
  };
  if (config.log.format === 'pretty') {
    // In-process pretty stream (not a worker transport): no extra thread, and logs written just
    // before exit are not lost.
    const stream = pretty({
      colorize: destination === undefined && process.stdout.isTTY,
      sync: true,
      destination: destination ?? 1,
      translateTime: 'SYS:HH:MM:ss.l',
      singleLine: true,
      ignore: 'pid,hostname,service',
    });
    return pino(options, stream);
  }
  return pino(options, destination ?? stdoutDestination());
}

/** The message of the one line per HTTP request (http/request-log.ts): the only lines that wait in the stdout buffer. */
export const REQUEST_LOG_MESSAGE = 'request';
/** Bytes of request lines collected before stdout is written. */
export const LOG_BUFFER_BYTES = 3072;
/**
 * The most one write to stdout carries: PIPE_BUF, the size up to which a write to a pipe is atomic, so the lines of
 * several server processes sharing the container's stdout never interleave within a line (a line longer than this
 * is written alone).
 */
export const LOG_MAX_WRITE_BYTES = 4096;
/** The longest a request line waits in the buffer on a quiet server before it is written anyway. */
export const LOG_FLUSH_INTERVAL_MS = 100;

const REQUEST_LINE_END = `"msg":${JSON.stringify(REQUEST_LOG_MESSAGE)}}\n`;

/**
 * stdout, written asynchronously, request lines in batches: a log line never blocks the event loop on a write, and at
 * saturation about ten request lines leave in one write instead of one or two per write (each write is a trip
 * through libuv's thread pool: a system call and two thread wake-ups). A request line waits at most
 * LOG_FLUSH_INTERVAL_MS for the buffer to fill (a periodic flush, unref'd); any other line (start-up, schema,
 * warnings, errors) is written at once, with the request lines buffered before it, so the order is kept. Whatever is
 * still buffered when the process exits (process.exit, the end of a graceful shutdown, a fatal error) is written
 * synchronously by pino's exit handler.
 */
function stdoutDestination(): DestinationStream {
  const stream = fileDestination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, maxWrite: LOG_MAX_WRITE_BYTES, periodicFlush: LOG_FLUSH_INTERVAL_MS });
  const flush = (): void => {
    try {
      stream.flush();
    } catch {
      // Destroyed: past pino's exit handler, which has written what was buffered.
    }
  };
  // A flush while a write is in flight does nothing: the line is flushed again once that write has drained.
  let urgent = false;
  stream.on('drain', () => {
    if (!urgent) return;
    urgent = false;
    flush();
  });
  const write = stream.write.bind(stream);
  stream.write = (line: string): boolean => {
    const written = write(line);
    if (!line.endsWith(REQUEST_LINE_END)) {
      urgent = true;
      flush();
    }
    return written;
  };
  return stream;
}
