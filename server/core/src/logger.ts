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
    base: { service: 'workflow-index' },
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
  // stdout written asynchronously: a request's log line no longer blocks the event loop on a synchronous write
  // (7 % of the server's busy time at saturation, docs/benchmarks.md); lines written while a write is in flight go
  // out together in the next one, and pino flushes what is left synchronously when the process exits.
  return pino(options, destination ?? fileDestination({ dest: 1, sync: false }));
}
