// The entry point both backends' servers share (`npm run serve:*`, the images): flags and environment → validated
// configuration (exit 2 with every problem) → the server, or with SERVER_PROCESSES > 1 a primary that forks that many
// workers (processes/primary.ts), each of which runs this same path. Exit codes: 0 after a graceful shutdown, 1 when
// start-up fails, 2 for invalid configuration or flags.
import cluster from 'node:cluster';
import { ConfigError, type CoreConfig } from './config.js';
import { tuneHeapGrowth } from './heap-tuning.js';
import { installGracefulShutdown, type RunningServer } from './http-server.js';
import { createLogger, type Logger } from './logger.js';
import { runPrimary } from './processes/primary.js';
import { announceStarted, followPrimary } from './processes/worker-lifecycle.js';
import { startTracing, tracingSettings } from './tracing.js';

export interface StartedServer {
  readonly http: RunningServer;
  /** Releases what the server holds (reader, pool, development database) once the HTTP servers have drained. */
  close(): Promise<void>;
}

export interface ServerEntry<Flags, Config extends { readonly core: CoreConfig }> {
  readonly backend: string;
  parseFlags(argv: readonly string[]): { readonly flags: Flags & { readonly help?: boolean }; readonly problems: readonly string[] };
  help(): string | Promise<string>;
  loadConfig(env: NodeJS.ProcessEnv, flags: Flags, problems: readonly string[]): Config;
  start(config: Config, logger: Logger): Promise<StartedServer>;
  /** The fatal line for a start-up error the backend words itself; undefined logs the error as it is. */
  startFailure?(error: unknown): string | undefined;
}

export function runServerMain<Flags, Config extends { readonly core: CoreConfig }>(entry: ServerEntry<Flags, Config>): void {
  main(entry).catch((error: unknown) => {
    process.stderr.write(`workflow-index: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}

async function main<Flags, Config extends { readonly core: CoreConfig }>(entry: ServerEntry<Flags, Config>): Promise<void> {
  followPrimary();
  const { flags, problems } = entry.parseFlags(process.argv.slice(2));
  if (flags.help === true && problems.length === 0) {
    process.stdout.write(`${await entry.help()}\n`);
    return;
  }
  const config = loadConfig(entry, flags, problems);
  if (config === null) return;
  if (cluster.isPrimary && config.core.http.processes > 1) {
    const logger = createLogger(config.core);
    logger.info({ mode: config.core.mode, backend: entry.backend, processes: config.core.http.processes }, 'starting server processes');
    runPrimary({ processes: config.core.http.processes, logger });
    return;
  }
  await serve(entry, config);
}

function loadConfig<Flags, Config extends { readonly core: CoreConfig }>(entry: ServerEntry<Flags, Config>, flags: Flags, problems: readonly string[]): Config | null {
  try {
    const config = entry.loadConfig(process.env, flags, problems);
    tracingSettings(process.env);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`workflow-index: invalid configuration:\n${error.problems.map((p) => `  - ${p}`).join('\n')}\n(see --help and docs/configuration.md)\n`);
    process.exitCode = 2;
    return null;
  }
}

async function serve<Flags, Config extends { readonly core: CoreConfig }>(entry: ServerEntry<Flags, Config>, config: Config): Promise<void> {
  // Before anything large is allocated: the old generation grows by a fixed factor (heap-tuning.ts).
  const heapGrowth = tuneHeapGrowth();
  const logger = createLogger(config.core);
  logger.info({ mode: config.core.mode, backend: entry.backend, heapGrowth }, 'starting');
  // Before the app is built: the GraphQL layer adds its spans only when tracing is on (OTEL_* environment).
  const tracing = startTracing(process.env, logger);
  let server: StartedServer;
  try {
    server = await entry.start(config, logger);
  } catch (error) {
    const worded = entry.startFailure?.(error);
    if (worded !== undefined) logger.fatal(worded);
    else logger.fatal({ err: error }, 'start-up failed');
    process.exitCode = 1;
    await tracing?.shutdown();
    // Whatever was started has been stopped; a handle nobody owns must not keep a failed process alive.
    setTimeout(() => process.exit(1), 2000).unref();
    return;
  }
  // The HTTP servers drain first (installGracefulShutdown closes them); close() then releases what the server holds.
  installGracefulShutdown(server.http, async () => {
    await server.close();
    await tracing?.shutdown();
  }, logger);
  logger.info({ startupMs: Math.round(performance.now()), httpPort: server.http.httpPort }, 'server started');
  announceStarted();
}
