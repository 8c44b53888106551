// Init container of the server pods (PostgreSQL backend): exits 0 once the database has the schema version this
// server image needs (every migration it ships, its normalizer definitions and rows normalized by its rules version,
// applied by the init Job of the same release) and the server's login can read it, so the server never starts against a database that is not migrated
// yet. A database migrated by a newer release (a downgrade) is never accepted: the pod keeps waiting with the reason.
// It runs in the server image (node, the `pg` package, and server/postgresql/{migrations,normalizer,package.json}
// under APP_ROOT) and needs no Kubernetes API access. The rule and its wording are server/postgresql/src/
// schema-version.ts; this file stays a plain script because the image holds no TypeScript runtime.
//
// Environment: DATABASE_URL (postgres://host:port/db), DATABASE_USERNAME, DATABASE_PASSWORD,
// WAIT_TIMEOUT_SECONDS (default 600), APP_ROOT (default /app/, where node_modules/pg and server/postgresql are).
// Exit codes: 0 ready, 1 not ready within the timeout, 2 settings missing.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const APP_ROOT = process.env.APP_ROOT ?? '/app/';
const require = createRequire(APP_ROOT);
const pg = require('pg');
const MODULE_DIR = join(APP_ROOT, 'server', 'postgresql');

/**
 * What this image needs, from its files as the migrator reads them (loadMigrations, loadNormalizer). The normalizer
 * definitions' fingerprint (comments and whitespace aside) and rules version come from the record shipped beside
 * them (normalizer/rules-fingerprint.json, which `npm test` holds to the files), so this script needs no SQL reader.
 */
function requiredSchema() {
  const versions = readdirSync(join(MODULE_DIR, 'migrations'))
    .map((file) => /^(\d+)_[\w-]+\.sql$/.exec(file))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  const record = JSON.parse(readFileSync(join(MODULE_DIR, 'normalizer', 'rules-fingerprint.json'), 'utf8'));
  const release = JSON.parse(readFileSync(join(MODULE_DIR, 'package.json'), 'utf8')).version;
  return { versions, normalizerChecksum: record.fingerprint, normalizerRulesVersion: record.rulesVersion, release };
}

const HISTORY_SQL = `SELECT to_regclass('workflow_index.schema_migrations')::text AS m, to_regclass('workflow_index.normalizer_definitions')::text AS n`;

/** The reason the database does not (yet) have the schema `required`, or undefined; wording as schema-version.ts. */
async function schemaReason(client, required) {
  const needed = required.versions.at(-1) ?? 0;
  const tables = (await client.query(HISTORY_SQL)).rows[0];
  if (!tables?.m) return `schema version ${needed} needed, database has no schema: run the init job`;
  const privileges = (await client.query(
    `SELECT has_table_privilege($1::text, 'SELECT') AS m, CASE WHEN $2::text IS NULL THEN NULL ELSE has_table_privilege($2::text, 'SELECT') END AS n`,
    [tables.m, tables.n],
  )).rows[0];
  if (!privileges?.m || privileges.n === false) {
    return `schema version ${needed} needed, the login cannot read workflow_index.schema_migrations (the init job of this release grants it to workflow_index_reader): run the init job`;
  }
  const applied = (await client.query('SELECT version FROM workflow_index.schema_migrations ORDER BY version')).rows.map((r) => r.version);
  const at = applied.at(-1) ?? 0;
  if (applied.some((v) => !required.versions.includes(v))) return `database schema ${at} is newer than this release knows (${needed}): refusing (downgrade)`;
  if (required.versions.some((v) => !applied.includes(v))) return `schema version ${needed} needed, database is at ${at}: run the init job`;
  const normalizer = tables.n ? (await client.query('SELECT to_jsonb(n) AS r FROM workflow_index.normalizer_definitions n')).rows[0]?.r ?? null : null;
  const rules = required.normalizerRulesVersion;
  const recorded = normalizer?.rules_version ?? null;
  if (normalizer?.checksum === required.normalizerChecksum && recorded === rules) return undefined;
  if (recorded !== null && recorded > rules) {
    return `database rows were normalized by rules version ${recorded}, newer than this release's (${rules}): refusing (downgrade)`;
  }
  const release = normalizer?.release ?? null;
  if (release !== null && compareReleases(release, required.release) > 0) {
    return `database normalizer definitions are of release ${release}, newer than this release (${required.release}): refusing (downgrade)`;
  }
  if (normalizer?.checksum === required.normalizerChecksum) {
    const by = recorded === null ? 'rules of no recorded version' : `rules version ${recorded}`;
    return `rows normalized by rules version ${rules} needed, database has rows normalized by ${by}: run the init job`;
  }
  const has = normalizer === null ? 'none' : release === null ? 'older ones' : `those of release ${release}`;
  return `normalizer definitions of release ${required.release} needed, database has ${has}: run the init job`;
}

/** As compareReleases in schema-version.ts (semver order; unparsable below parsable). */
function compareReleases(a, b) {
  const parse = (v) => {
    const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(v.trim());
    return m ? { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? null } : null;
  };
  const x = parse(a);
  const y = parse(b);
  if (x === null || y === null) return (x === null ? 0 : 1) - (y === null ? 0 : 1);
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return Math.sign(x.core[i] - y.core[i]);
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  const xs = x.pre.split('.');
  const ys = y.pre.split('.');
  for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
    const p = xs[i];
    const q = ys[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Math.sign(Number(p) - Number(q));
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

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

async function check(url, required) {
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000, query_timeout: 5000 });
  try {
    await client.connect();
    const reason = await schemaReason(client, required);
    if (reason !== undefined) return reason;
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
  const required = requiredSchema();
  const timeoutSeconds = Number(process.env.WAIT_TIMEOUT_SECONDS ?? '600');
  const deadline = Date.now() + timeoutSeconds * 1000;
  const where = `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  for (let attempt = 1; ; attempt++) {
    let reason;
    try {
      reason = await check(url, required);
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    if (reason === undefined) {
      log(`schema version ${required.versions.at(-1) ?? 0} of release ${required.release} found`);
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
