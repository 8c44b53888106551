// Development databases ("dev services"), so `npm start` needs nothing installed:
//  - embedded: PGlite (PostgreSQL compiled to WebAssembly, in this process) persisted in a data directory and
//    served on a loopback port by pglite-socket, so the server uses the very same `pg` code path as in production;
//  - container: postgres:17 started with testcontainers, where a Docker engine exists.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { PoolConfig } from 'pg';
import type * as Testcontainers from 'testcontainers';
import type { Logger } from '@workflow-index/core';

export interface DevDatabase {
  readonly kind: 'embedded' | 'container';
  /** Connection settings for `pg` (host, port, user, password, database). */
  readonly connection: PoolConfig;
  /**
   * Most connections the database handles correctly at the same time. pglite-socket multiplexes connections onto
   * one PGlite instance message by message, so two sessions running extended-protocol queries at the same time can
   * interleave their Parse/Bind messages: the embedded database gets exactly one connection.
   */
  readonly maxConnections: number;
  /** For the start-up log, e.g. `PGlite 0.5.14 in .data/pglite (127.0.0.1:39211)`. */
  readonly description: string;
  stop(): Promise<void>;
}

/** A development database could not be started; the message says what to do instead. */
export class DevServicesError extends Error {
  override readonly name = 'DevServicesError';
}

export interface EmbeddedDatabaseOptions {
  /** The loopback port to serve on when it is free (else a free one, logged); default 0: a free one. */
  readonly port?: number;
  readonly logger?: Pick<Logger, 'warn'>;
}

/** Starts PGlite on `dataDir` (created when missing; its contents survive restarts) behind a loopback socket. */
export async function startEmbeddedDatabase(dataDir: string, options: EmbeddedDatabaseOptions = {}): Promise<DevDatabase> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const releaseLock = acquireDataDirLock(dir);
  try {
    const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-socket')]);
    const db = await PGlite.create(dir);
    let server: InstanceType<typeof PGLiteSocketServer>;
    try {
      server = await listenOn(options, (port) => {
        // Two sockets: the set-up connection may still be closing when the server's pool opens its one connection.
        const socket = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: 2 });
        return socket.start().then(() => socket);
      });
    } catch (error) {
      await db.close().catch(() => undefined);
      throw error;
    }
    const [host, port] = splitHostPort(server.getServerConn());
    const version = (await db.query<{ v: string }>('SELECT version() AS v')).rows[0]?.v ?? 'PGlite';
    let stopped: Promise<void> | undefined;
    return {
      kind: 'embedded',
      connection: { host, port, user: 'postgres', database: 'postgres' },
      maxConnections: 1,
      description: `${/\(PGlite [^)]*\)/.exec(version)?.[0]?.slice(1, -1) ?? 'PGlite'} in ${dataDir} (${host}:${port})`,
      stop: () => {
        stopped ??= (async () => {
          try {
            await server.stop();
          } finally {
            try {
              await db.close();
            } finally {
              releaseLock();
            }
          }
        })();
        return stopped;
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/** Listens on the preferred port; when another process has it, on a free one (said in a warning). */
async function listenOn<T>(options: EmbeddedDatabaseOptions, listen: (port: number) => Promise<T>): Promise<T> {
  const preferred = options.port ?? 0;
  if (preferred === 0) return listen(0);
  try {
    return await listen(preferred);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    options.logger?.warn({ port: preferred }, 'the embedded database\'s port is taken (DEV_DATABASE_PORT): serving it on a free port instead');
    return listen(0);
  }
}

function splitHostPort(conn: string): [string, number] {
  const at = conn.lastIndexOf(':');
  return [conn.slice(0, at), Number(conn.slice(at + 1))];
}

/**
 * PGlite does not lock its data directory, and two processes writing one directory would corrupt it: a lock file
 * beside the directory records the owner's pid. A lock left by a process that no longer runs is taken over.
 */
function acquireDataDirLock(dir: string): () => void {
  const lockFile = `${dir}.lock`;
  mkdirSync(dirname(lockFile), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lockFile, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processIsAlive(owner)) {
        throw new DevServicesError(
          `the embedded database in ${dir} is in use by another process (pid ${owner}); stop it, or set DEV_DATA_DIR to another directory (lock file ${lockFile})`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new DevServicesError(`could not lock the embedded database directory ${dir} (${lockFile})`);
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const CONTAINER_USER = 'workflow_index';
const CONTAINER_PASSWORD = 'workflow-index-dev';
const CONTAINER_DATABASE = 'workflow_index';

/** Starts `image` (postgres:17) with testcontainers; fails at once with a clear message when no container engine is available. */
export async function startContainerDatabase(image: string): Promise<DevDatabase> {
  // Loaded only here: testcontainers is a development dependency, absent from production images.
  let testcontainers: typeof Testcontainers;
  try {
    testcontainers = await import('testcontainers');
  } catch (error) {
    throw new DevServicesError(`--dev-services=container needs the testcontainers package (npm install): ${(error as Error).message}`);
  }
  try {
    await testcontainers.getContainerRuntimeClient();
  } catch (error) {
    throw new DevServicesError(
      `--dev-services=container needs a running Docker engine (or Podman / another runtime testcontainers supports), but none was found: ${(error as Error).message}. ` +
        'Start one, or use the embedded database (DEV_SERVICES=embedded, the default), or point DATABASE_URL at a PostgreSQL server.',
    );
  }
  const container = await new testcontainers.GenericContainer(image)
    .withEnvironment({ POSTGRES_USER: CONTAINER_USER, POSTGRES_PASSWORD: CONTAINER_PASSWORD, POSTGRES_DB: CONTAINER_DATABASE })
    .withExposedPorts(5432)
    // The official image restarts the server once after initdb: the second "ready" line is the real one.
    .withWaitStrategy(testcontainers.Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .withStartupTimeout(120_000)
    .start();
  const host = container.getHost();
  const port = container.getMappedPort(5432);
  let stopped: Promise<void> | undefined;
  return {
    kind: 'container',
    connection: { host, port, user: CONTAINER_USER, password: CONTAINER_PASSWORD, database: CONTAINER_DATABASE },
    maxConnections: Number.POSITIVE_INFINITY,
    description: `${image} container ${container.getId().slice(0, 12)} (${host}:${port})`,
    stop: () => {
      stopped ??= container.stop().then(() => undefined);
      return stopped;
    },
  };
}
