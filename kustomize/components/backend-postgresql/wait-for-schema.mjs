// Init container of the server pods (PostgreSQL backend): exits 0 once the schema the init Job applies is
// visible to the server's login, so the server never starts against a database that is not migrated yet.
// It runs in the server image (node + the `pg` package under APP_ROOT) and needs no Kubernetes API access.
//
// Environment: DATABASE_URL (postgres://host:port/db), DATABASE_USERNAME, DATABASE_PASSWORD,
// WAIT_TIMEOUT_SECONDS (default 600), APP_ROOT (default /app/, where node_modules/pg is).
// Exit codes: 0 ready, 1 not ready within the timeout, 2 settings missing.
import { createRequire } from 'node:module';

const require = createRequire(process.env.APP_ROOT ?? '/app/');
const pg = require('pg');

// Objects the server reads; created by the first migration. Existence first: the privilege functions raise
// on a missing object.
const EXISTS_SQL = `SELECT to_regclass('workflow_index.workflow_instances') IS NOT NULL
   AND to_regclass('workflow_index.task_executions') IS NOT NULL
   AND to_regprocedure('workflow_index.ingest_stats()') IS NOT NULL AS ok`;
const PRIVILEGES_SQL = `SELECT has_table_privilege('workflow_index.workflow_instances', 'SELECT')
   AND has_table_privilege('workflow_index.task_executions', 'SELECT')
   AND has_function_privilege('workflow_index.ingest_stats()', 'EXECUTE') AS ok`;

function log(message) {
  process.stderr.write(`wait-for-schema: ${message}\n`);
}

function connectionUrl() {
  const raw = process.env.DATABASE_URL;
  if (!raw) return undefined;
  const url = new URL(raw);
  if (process.env.DATABASE_USERNAME) url.username = encodeURIComponent(process.env.DATABASE_USERNAME);
  if (process.env.DATABASE_PASSWORD) url.password = encodeURIComponent(process.env.DATABASE_PASSWORD);
  return url;
}

async function check(url) {
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000, query_timeout: 5000 });
  try {
    await client.connect();
    if (!(await client.query(EXISTS_SQL)).rows[0]?.ok) return 'schema not migrated yet';
    if (!(await client.query(PRIVILEGES_SQL)).rows[0]?.ok) return 'the login lacks the workflow_index_reader privileges';
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function main() {
  const url = connectionUrl();
  if (!url) {
    log('DATABASE_URL is not set');
    return 2;
  }
  const timeoutSeconds = Number(process.env.WAIT_TIMEOUT_SECONDS ?? '600');
  const deadline = Date.now() + timeoutSeconds * 1000;
  const where = `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  for (let attempt = 1; ; attempt++) {
    let reason;
    try {
      reason = await check(url);
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    if (reason === undefined) {
      log(`schema ready at ${where}`);
      return 0;
    }
    if (Date.now() >= deadline) {
      log(`gave up after ${timeoutSeconds} s: ${reason} (${where})`);
      return 1;
    }
    const delay = Math.min(1000 * 2 ** Math.min(attempt - 1, 4), 10_000);
    log(`attempt ${attempt}: ${reason} (${where}); next try in ${delay / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(deadline - Date.now(), 0))));
  }
}

process.exitCode = await main();
