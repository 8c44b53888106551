// Start-up of the PostgreSQL server from a loaded configuration: (development) start the dev-services
// database → migrate when configured → (development) load the demo events into an empty database → pool +
// reader → schema-version gate → app → HTTP. close() undoes it in reverse: drain HTTP, close the pool, stop the dev
// database. The server never changes the schema in production (the init job does); the gate keeps readiness DOWN,
// with the reason, until the database has the schema this release needs.
import { rmSync } from 'node:fs';
import type pg from 'pg';
import { createApp } from '@workflow-index/core';
import type { App } from '@workflow-index/core';
import { startHttpServer } from '@workflow-index/core';
import type { RunningServer } from '@workflow-index/core';
import type { Logger } from '@workflow-index/core';
import { BackendUnavailableError } from '@workflow-index/core';
import type { Reader } from '@workflow-index/core';
import { describePostgresConnection, toPoolConfig } from './connection-settings.js';
import { loadDemoEventsIfEmpty } from './demo-data.js';
import { startContainerDatabase, startEmbeddedDatabase } from './dev-database.js';
import { isBuiltInDemo, staleDemoOnly } from './dev-demo-refresh.js';
import type { DevDatabase } from './dev-database.js';
import { migrate, requiredSchema } from './migrator.js';
import type { PostgresqlServerConfig } from './postgresql-config.js';
import { createPool } from './postgresql-pool.js';
import { createPostgresqlReader } from './postgresql-reader.js';
import { PostgresqlChangeFeed } from './postgresql-change-feed.js';
import { type ReplicationLagLimit, REPLICATION_LAG_QUERY, assertReplicationLag, lagOf } from './replication-lag.js';
import { compareSchema, readSchemaState, schemaVersionOf, SchemaVersionGate } from './schema-version.js';

export const BACKEND_NAME = 'postgresql';

export interface PostgresqlServer {
  readonly app: App;
  readonly reader: Reader;
  /** Whether the database has the schema this release needs (readiness and queries follow it). */
  readonly schemaGate: SchemaVersionGate;
  readonly http: RunningServer;
  /** Base URL of the HTTP listener on loopback, e.g. `http://localhost:8080`. */
  readonly baseUrl: string;
  /** Drains HTTP, then closes the pool, then stops the development database. Idempotent. */
  close(): Promise<void>;
}

/** Starts everything; on failure, whatever was already started is stopped again before the error is thrown. */
export async function startPostgresqlServer(config: PostgresqlServerConfig, logger: Logger): Promise<PostgresqlServer> {
  const cleanups: Array<() => Promise<void>> = [];
  const unwind = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    const { database } = config;
    let devDatabase: DevDatabase | null = null;
    if (database.devServices === 'embedded') {
      devDatabase = await startEmbedded(config, logger);
    } else if (database.devServices === 'container') {
      logger.info({ image: config.dev.containerImage }, 'starting a PostgreSQL container (testcontainers)');
      devDatabase = await startContainerDatabase(config.dev.containerImage);
    }
    if (devDatabase !== null) {
      const started = devDatabase;
      cleanups.push(() => started.stop());
      logger.info({ database: devDatabase.description }, 'development database running');
    }

    const connection: pg.PoolConfig = database.connection !== null
      ? toPoolConfig(database.connection)
      : {
        ...devDatabase?.connection,
        max: Math.min(devDatabase?.maxConnections ?? 1, 10),
        // The embedded database serves one connection; keep it instead of reopening it after idle periods.
        ...(devDatabase?.kind === 'embedded' ? { idleTimeoutMillis: 0 } : {}),
      };
    if (database.connection !== null) logger.info({ database: describePostgresConnection(database.connection) }, 'database');

    if (database.migrate || devDatabase !== null) {
      await prepareSchema(config, connection, devDatabase !== null, logger);
    } else {
      logger.info(database.schemaInitEnabled ? 'schema changes off (DATABASE_MIGRATE=false): the init job manages the schema' : 'schema initialization disabled (SCHEMA_INIT_ENABLED=false)');
    }

    const pool = createPool({
      connection,
      queryTimeoutMs: database.queryTimeoutMs,
      connectTimeoutMs: database.connectTimeoutMs,
      // A dev-services database is ours (we just loaded it as its owner); read-only sessions guard the others.
      readOnly: devDatabase === null,
      // Only the reason: pg attaches the whole client to idle errors.
      onIdleError: (error) => logger.warn({ reason: error.message, code: (error as { code?: string }).code }, 'database connection lost; it is replaced on next use'),
    });
    const postgresqlReader = createPostgresqlReader({ pool });
    cleanups.push(() => postgresqlReader.close());
    let reachable = true;
    try {
      await postgresqlReader.ping(database.connectTimeoutMs);
    } catch (error) {
      // Not fatal: readiness reports DOWN and the pool connects once the database is back.
      reachable = false;
      logger.warn({ err: error }, 'database not reachable at start; serving with readiness DOWN until it is');
    }

    const required = requiredSchema();
    const schemaGate = new SchemaVersionGate({
      required,
      intervalMs: config.schemaCheck.intervalMs,
      check: async () => {
        const client = await pool.connect();
        try {
          return compareSchema(required, await readSchemaState(client));
        } finally {
          client.release();
        }
      },
      onChange: (state) => {
        const schemaVersion = schemaVersionOf(required);
        if (state.blocking !== null) logger.warn({ schemaVersion, release: required.release, reason: state.blocking }, 'database schema not servable; readiness DOWN until it is');
        else if (state.verdict?.status === 'newer') logger.warn({ schemaVersion, release: required.release, reason: state.verdict.reason }, 'database schema is newer (an upgrade is in progress): this server keeps serving until it is replaced');
        else logger.info({ schemaVersion, release: required.release }, 'database schema matches this release');
      },
    });
    if (reachable) await schemaGate.start();
    else void schemaGate.start();
    cleanups.push(async () => schemaGate.stop());
    const lagLimit: ReplicationLagLimit = {
      maxSeconds: database.maxReplicationLagSeconds,
      read: async () => lagOf((await pool.query<{ replication_lag_seconds: unknown }>(REPLICATION_LAG_QUERY)).rows[0]?.replication_lag_seconds),
    };
    const reader = gateReader(postgresqlReader, schemaGate, lagLimit);

    // The embedded database serves one connection: no LISTEN connection beside it, so no live updates there.
    const changeFeed = devDatabase?.kind === 'embedded' ? null : new PostgresqlChangeFeed({ connection, logger });
    const app = createApp({ config: config.core, reader, logger, backend: BACKEND_NAME, changeFeed });
    cleanups.push(() => app.dispose());
    const http = await startHttpServer(app, config.core, logger);
    cleanups.push(() => http.close());

    const baseUrl = `http://localhost:${http.httpPort}`;
    if (config.core.mode === 'development') announce(config, baseUrl, http, logger);
    let closing: Promise<void> | undefined;
    return { app, reader, schemaGate, http, baseUrl, close: () => (closing ??= unwind()) };
  } catch (error) {
    await unwind();
    throw error;
  }
}

/** Methods that do not read the served tables, so they work on any schema (metrics, shutdown). */
const UNGATED = new Set<PropertyKey>(['close', 'poolStats', 'ingestionStats']);

/**
 * The reader as the app sees it: while the gate blocks, ping (readiness) fails with the gate's reason, re-checking
 * the schema on every probe so readiness follows the init job at once, and queries answer SERVICE_UNAVAILABLE; ping
 * also fails while the replica read from is further behind than DATABASE_MAX_REPLICATION_LAG_SECONDS.
 * (A proxy rather than a class: every present and future query method of the Reader is gated.)
 */
function gateReader(reader: Reader, gate: SchemaVersionGate, lagLimit: ReplicationLagLimit): Reader {
  return new Proxy(reader, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property === 'ping') {
        return async (timeoutMs: number): Promise<void> => {
          await target.ping(timeoutMs);
          if (gate.blocking() !== null) await gate.refresh();
          const reason = gate.blocking();
          if (reason !== null) throw new BackendUnavailableError(reason);
          await assertReplicationLag(lagLimit);
        };
      }
      if (UNGATED.has(property)) return method.bind(target);
      return (...args: unknown[]): unknown => {
        const reason = gate.blocking();
        return reason === null ? method.apply(target, args) : Promise.reject(new BackendUnavailableError(reason));
      };
    },
  });
}

/**
 * The embedded database; started over (its directory removed) when it holds only a built-in demo placed more than
 * an hour ago, so a restart shows a demo placed before it again (dev-demo-refresh.ts).
 */
async function startEmbedded(config: PostgresqlServerConfig, logger: Logger): Promise<DevDatabase> {
  const { dataDir, databasePort, demoEvents } = config.dev;
  logger.info({ dataDir }, 'starting the embedded PostgreSQL (PGlite)');
  const database = await startEmbeddedDatabase(dataDir, { port: databasePort, logger });
  if (!isBuiltInDemo(demoEvents)) return database;
  try {
    if (!(await staleDemoOnly(database.connection))) return database;
  } catch (error) {
    await database.stop();
    throw error;
  }
  logger.info({ dataDir }, 'the embedded database holds only a demo placed more than an hour ago: starting it over with a new demo');
  await database.stop();
  rmSync(dataDir, { recursive: true, force: true });
  return startEmbeddedDatabase(dataDir, { port: databasePort, logger });
}

/** Migrations (when on) and the demo events (dev services), over one short-lived read-write connection. */
async function prepareSchema(config: PostgresqlServerConfig, connection: pg.PoolConfig, devServices: boolean, logger: Logger): Promise<void> {
  const { database } = config;
  const pool = createPool({
    connection: { ...connection, max: 1, min: 0 },
    // DDL and a demo load may take longer than a query; the connect bound stays the same.
    queryTimeoutMs: Math.max(database.queryTimeoutMs, 120_000),
    connectTimeoutMs: database.connectTimeoutMs,
    readOnly: false,
    applicationName: 'workflow-index-setup',
  });
  try {
    if (database.migrate) {
      const client = await pool.connect();
      try {
        const steps = await migrate(client, {
          onNormalizer: (r) => {
            if (r.status === 'applied') logger.info({ files: r.files, rebuiltEvents: r.rebuiltEvents, durationMs: r.durationMs }, 'normalizer definitions applied');
          },
        });
        for (const step of steps) {
          if (step.status === 'applied') logger.info({ migration: `${step.version}_${step.name}`, durationMs: step.durationMs }, 'migration applied');
        }
        logger.info({ applied: steps.filter((s) => s.status === 'applied').length, total: steps.length }, 'schema up to date');
      } finally {
        client.release();
      }
    } else {
      logger.info(database.schemaInitEnabled ? 'schema changes off (DATABASE_MIGRATE=false)' : 'schema initialization disabled (SCHEMA_INIT_ENABLED=false)');
    }
    if (devServices && config.dev.demoEvents !== null) {
      try {
        const result = await loadDemoEventsIfEmpty(pool, config.dev.demoEvents);
        if (result.status === 'loaded') {
          const s = result.summary;
          logger.info({ file: config.dev.demoEvents, events: s.eventsWritten.total, rejected: s.rejected, base: new Date(result.baseMs).toISOString(), durationMs: s.durationMs }, 'demo events loaded');
        } else {
          logger.info({ reason: result.reason }, 'demo events not loaded');
        }
      } catch (error) {
        logger.warn({ err: error, file: config.dev.demoEvents }, 'demo events could not be loaded');
      }
    }
  } finally {
    await pool.end();
  }
}

function announce(config: PostgresqlServerConfig, baseUrl: string, http: RunningServer, logger: Logger): void {
  const lines = [
    `Workflow Index (PostgreSQL${config.database.devServices ? `, ${config.database.devServices} development database` : ''}) is running:`,
    ...(config.core.console.enabled && config.core.graphql.introspection !== 'NO_INTROSPECTION_OR_QUERY' ? [`  Console       ${baseUrl}/`] : []),
    `  GraphQL UI    ${baseUrl}/q/graphql-ui`,
    `  Docs          ${baseUrl}/docs`,
    `  GraphQL API   ${baseUrl}/graphql  (POST)`,
    `  Health        ${baseUrl}/q/health   Metrics ${baseUrl}/q/metrics`,
    ...(http.httpsPort !== null ? [`  HTTPS         https://localhost:${http.httpsPort}/`] : []),
  ];
  logger.info({ graphqlUi: `${baseUrl}/q/graphql-ui`, docs: `${baseUrl}/docs`, graphql: `${baseUrl}/graphql` }, 'development server ready');
  // Plain lines too, so the links stand out of the log stream and stay clickable.
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}
