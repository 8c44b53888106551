// A test-owned PostgreSQL primary and streaming standby (pg_basebackup -R), for the suites that read from a replica.
// Both run from the PostgreSQL 15 binaries (WI_PG_BIN, default /usr/lib/postgresql/15/bin) in one temporary
// directory, on free loopback ports, never touching the shared server. PostgreSQL refuses to run as root: as root
// every command runs as the `postgres` OS user (the Debian package's) through runuser, in a directory it owns.
// Outside CI missing binaries skip the suite with a message; with CI=true they fail it.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, appendFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@workflow-index/testkit';

const run = promisify(execFile);

export const PG_BIN = process.env['WI_PG_BIN'] ?? '/usr/lib/postgresql/15/bin';
/** The OS user the servers run as when the tests run as root. */
const PG_USER = 'postgres';
const BINARIES = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];

export interface ReplicaPair {
  /** Connection URL of the primary's `postgres` database (trust auth, user postgres). */
  readonly primaryUrl: string;
  /** The same database on the standby (read-only, replaying the primary's WAL). */
  readonly standbyUrl: string;
  readonly directory: string;
  /** Stops the standby, then the primary (fast shutdown), and removes the directory. Idempotent. */
  stop(): Promise<void>;
}

/** A serviceDescribe probe: true when the binaries (and, as root, the postgres user) are there. */
export async function replicaPairAvailable(): Promise<boolean> {
  const missing = BINARIES.filter((b) => !existsSync(join(PG_BIN, b)));
  const problem = missing.length > 0
    ? `missing ${missing.join(', ')} in ${PG_BIN} (set WI_PG_BIN)`
    : asRoot() && !(await userExists(PG_USER)) ? `running as root but there is no '${PG_USER}' OS user to run PostgreSQL as` : null;
  if (problem === null) return true;
  if (process.env['CI'] === 'true') throw new Error(`a PostgreSQL primary + standby is required in CI: ${problem}`);
  console.warn(`[skip] PostgreSQL replica suites skipped: ${problem}`);
  return false;
}

export async function startReplicaPair(): Promise<ReplicaPair> {
  const directory = mkdtempSync(join(tmpdir(), 'wi-replica-'));
  chmodSync(directory, 0o755);
  if (asRoot()) await run('chown', [`${PG_USER}:`, directory]);
  const primary = join(directory, 'primary');
  const standby = join(directory, 'standby');
  const started: string[] = [];
  const stop = async (): Promise<void> => {
    for (const dataDir of started.splice(0).reverse()) {
      await pg('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch((error: unknown) => console.warn(`[replica pair] stop ${dataDir}: ${(error as Error).message}`));
    }
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    const [primaryPort, standbyPort] = [await freePort(), await freePort()];
    await pg('initdb', ['-D', primary, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
    appendFileSync(join(primary, 'postgresql.conf'), serverSettings(primaryPort, directory));
    appendFileSync(join(primary, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    await pg('pg_ctl', ['-D', primary, '-l', join(directory, 'primary.log'), '-w', 'start']);
    started.push(primary);
    await pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standby, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    // -R wrote primary_conninfo and standby.signal; the standby differs from the primary only by its port.
    appendFileSync(join(standby, 'postgresql.auto.conf'), `port = ${standbyPort}\n`);
    await pg('pg_ctl', ['-D', standby, '-l', join(directory, 'standby.log'), '-w', 'start']);
    started.push(standby);
    return {
      primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
      standbyUrl: `postgres://postgres@127.0.0.1:${standbyPort}/postgres`,
      directory,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function serverSettings(port: number, socketDirectory: string): string {
  return [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${socketDirectory}'`,
    'wal_level = replica',
    'max_wal_senders = 4',
    'hot_standby = on',
    'max_connections = 40',
    'shared_buffers = 16MB',
    // A throwaway test cluster: durability is not what is tested.
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    '',
  ].join('\n');
}

async function pg(binary: string, args: readonly string[]): Promise<void> {
  const path = join(PG_BIN, binary);
  const [command, argv] = asRoot() ? ['runuser', ['-u', PG_USER, '--', path, ...args]] : [path, [...args]];
  try {
    await run(command, argv, { cwd: tmpdir(), timeout: 60_000 });
  } catch (error) {
    const e = error as Error & { stderr?: string };
    throw new Error(`${binary} ${args.join(' ')} failed: ${(e.stderr ?? '').trim() || e.message}`, { cause: error });
  }
}

function asRoot(): boolean {
  return process.getuid?.() === 0;
}

async function userExists(user: string): Promise<boolean> {
  try {
    await run('id', ['-u', user]);
    return true;
  } catch {
    return false;
  }
}
