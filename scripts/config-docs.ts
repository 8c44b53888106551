// `npm run docs:config`: writes docs/configuration.md from the configuration tables in code, so every key is written
// out once (its table, next to the code that reads it) and the page cannot drift from it. `--check` writes nothing and
// exits 1 when the page differs from what the tables give (test/config-docs.test.ts does the same in `npm test`).
//   server (both backends)  CORE_CONFIG_KEYS        server/core/src/config.ts
//   PostgreSQL server       POSTGRESQL_CONFIG_KEYS  server/postgresql/src/postgresql-config.ts
//   OpenSearch server       OPENSEARCH_CONFIG_KEYS  server/opensearch/src/opensearch-server-config.ts
//   OpenSearch normalizer   NORMALIZER_CONFIG_KEYS  below, until the normalizer's configuration has a table of its own
// The prose around the tables (how settings are read, URLs, exit codes) is this file's.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CORE_CONFIG_KEYS } from '@workflow-index/core';
import type { ConfigKeyDoc } from '@workflow-index/core';
import { OPENSEARCH_CONFIG_KEYS } from '@workflow-index/opensearch';
import { POSTGRESQL_CONFIG_KEYS } from '@workflow-index/postgresql';

export const CONFIGURATION_PAGE = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

/**
 * The keys `npm run normalize:opensearch` reads besides the OpenSearch connection and LOG_LEVEL. Kept here because
 * the normalizer reads them one by one; test/config-docs.test.ts fails when server/opensearch/src reads a
 * NORMALIZER_* key this table lacks, or documents one it no longer reads, or when a default differs.
 */
export const NORMALIZER_CONFIG_KEYS: readonly ConfigKeyDoc[] = Object.freeze([
  { key: 'NORMALIZER_INTERVAL_MS', development: '1000', production: '1000', description: 'Pause between two cycles; a failing cycle is retried after a pause that doubles from this one.' },
  { key: 'NORMALIZER_OVERLAP_MS', development: '10000', production: '10000', description: 'How far before its checkpoint a cycle lists every raw event again, so documents refreshed late are not skipped.' },
  { key: 'NORMALIZER_LATE_WINDOW_MS', development: '120000', production: '120000', description: 'How far before its checkpoint a cycle counts raw events per second and lists again the seconds whose count grew, so writes a hung node held (stamped before they became searchable) are normalized; covers fault detection (about 30 s) and the one-minute `_bulk` timeout. At least NORMALIZER_OVERLAP_MS (equal: no audit); raw retention keeps this margin.' },
  { key: 'NORMALIZER_LEASE_TTL_MS', development: '20000', production: '20000', description: 'How long a replica\'s slot leases and heartbeat last without renewal: a dead replica\'s runs are taken over by the others within this plus NORMALIZER_INTERVAL_MS (a warning at start when that exceeds 30 s). The number of replicas is the bundle\'s (NORMALIZER_REPLICAS, docs/opensearch.md).' },
  { key: 'NORMALIZER_BATCH_SIZE', development: '200', production: '200', description: 'Most runs recomputed in one batch of a cycle (and in one page of a re-normalization).' },
  { key: 'NORMALIZER_CYCLE_EVENT_BUDGET', development: '20000', production: '20000', description: 'Most stored and new events one batch of a cycle may hold beside NORMALIZER_BATCH_SIZE (a batch always takes at least one run), so a burst touching many long runs does not exhaust the memory.' },
  { key: 'NORMALIZER_RETENTION_INTERVAL_MS', development: '3600000', production: '3600000', description: 'How often the retention rule is applied; 0: only `init-job prune --backend opensearch` applies it.' },
  { key: 'NORMALIZER_MAX_BACKOFF_MS', development: '30000', production: '30000', description: 'Longest pause between retries of a failing cycle: how long it may take to resume after an outage.' },
  { key: 'NORMALIZER_RENORMALIZE_SLICE_MS', development: '1000', production: '1000', description: 'After an upgrade whose normalization rules changed, how long the background re-normalization may run after each cycle (at least one page). At most a third of NORMALIZER_LEASE_TTL_MS, or the normalizer refuses to start.' },
  { key: 'NORMALIZER_RENORMALIZE_EVENT_BUDGET', development: '20000', production: '20000', description: 'Most stored events one page of that re-normalization may hold (a page always takes at least one run).' },
  { key: 'NORMALIZER_HTTP_PORT', development: '9464', production: '9464', description: 'Port of the normalizer\'s own /q/metrics and /q/health endpoints.' },
] satisfies ConfigKeyDoc[]);

/** `A / B (--flag)` → `` `A` / `B` (`--flag`) ``. */
function keyCell(key: string): string {
  const flag = /^(.*?)\s*\((--[a-z-]+)\)$/.exec(key);
  const names = (flag?.[1] ?? key).split(' / ').map((name) => `\`${name.trim()}\``).join(' / ');
  return flag === null ? names : `${names} (\`${flag[2]}\`)`;
}

/** A value of the table: code when it is one, as written when it is prose (`—`, `required`, `all interfaces`). */
function valueCell(value: string): string {
  if (value === '—' || value === '') return '—';
  if (/^(required|all interfaces)$/.test(value)) return value;
  return `\`${value}\``;
}

/** Setting names and repository paths in a description as code, `docs/x.md` as a link; `|` escaped for the table. */
function descriptionCell(description: string): string {
  return description
    .replace(/\|/g, '\\|')
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/\bdocs\/([a-z-]+\.md)\b/g, '[$1]($1)')
            .replace(/(?<![\w`[])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w`])/g, '`$1`')
            .replace(/(?<![\w`])(__[a-zA-Z]+)/g, '`$1`'),
    )
    .join('');
}

function table(keys: readonly ConfigKeyDoc[]): string {
  const rows = keys.map((k) => `| ${keyCell(k.key)} | ${valueCell(k.development)} | ${valueCell(k.production)} | ${descriptionCell(k.description)} |`);
  return ['| setting | development | production | notes |', '|---|---|---|---|', ...rows].join('\n');
}

/** The whole page, byte for byte what docs/configuration.md must hold. */
export function renderConfigurationDocs(): string {
  return `<!-- Generated by \`npm run docs:config\` (scripts/config-docs.ts) from the configuration tables in code; edit those, not this page. -->
# Configuration

[README](../README.md) › Configuration. Every setting of the servers and of the OpenSearch normalizer. The init job's
settings are in [cli.md](cli.md#environment); tracing uses the standard OpenTelemetry variables
([operations.md](operations.md#tracing)).

Settings come from the environment (and from the flags a command line takes): flags win over the environment, the
environment over the defaults. They are read once at start, validated together before anything connects — a
configuration with problems exits 2 and lists every problem in one message — and then frozen. The defaults differ by
mode: \`npm start\` and \`npm run start:opensearch\` run in development mode (\`NODE_ENV=development\`), everything else
(\`serve:*\`, the images) in production mode.

## Every server (both backends)

HTTP, GraphQL limits, query cost, CORS, logging, health and metrics: the same keys for the PostgreSQL and the
OpenSearch server.

${table(CORE_CONFIG_KEYS)}

## PostgreSQL server

\`npm start\`, \`npm run serve:postgresql\`, the image target \`postgresql\`.

${table(POSTGRESQL_CONFIG_KEYS)}

Database URLs: percent-encode special characters in credentials (in JDBC URLs \`+\` means a space). \`sslmode\`:
\`disable\` (default), \`require\` (TLS, no verification), \`verify-ca\`, \`verify-full\`; \`sslrootcert=<file>\` names the
CA bundle; pgjdbc's \`ssl=true\` means \`verify-full\`. \`prefer\`/\`allow\` and multi-host URLs are refused. No message
or log line contains a password. The \`DATABASE_*\` names win over their \`QUARKUS_DATASOURCE_*\` aliases.

Each session prepares the reader's fixed-shape lookups (a run by id with or without its tasks, a task by id, the
tasks of one run, the tasks of a page of runs) once, as named statements: behind a transaction-mode pooler
(PgBouncer) set its \`max_prepared_statements\` (PgBouncer 1.21 or newer). The server's sessions are read-only
(\`default_transaction_read_only\`) on top of the reader role's privileges; the reader login itself starts every
session with \`statement_timeout\` 30 s and \`work_mem\` 4MB ([query-cost.md](query-cost.md#what-the-backends-enforce)).

## OpenSearch server

\`npm run start:opensearch\`, \`npm run serve:opensearch\`, the image target \`opensearch\`. The connection keys
(\`OPENSEARCH_HOST\` … \`OPENSEARCH_CA_FILE\`) are also those of the normalizer and of the init job.

${table(OPENSEARCH_CONFIG_KEYS)}

## OpenSearch normalizer

\`npm run normalize:opensearch\`, the image target \`opensearch-normalizer\`. It reads the OpenSearch connection keys
above and \`LOG_LEVEL\`, and these; a problem exits 2.

${table(NORMALIZER_CONFIG_KEYS)}

## Exit codes of the servers

0 after a graceful shutdown (SIGTERM or SIGINT: readiness DOWN, no new connections, requests in flight finish within
\`HTTP_SHUTDOWN_TIMEOUT_MS\`, connections closed), 1 when start-up fails, 2 for an invalid configuration. A server
starts even when its backend is unreachable: readiness is DOWN and queries answer \`SERVICE_UNAVAILABLE\` until the
backend is back; it reconnects by itself.
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const expected = renderConfigurationDocs();
  if (process.argv.includes('--check')) {
    const current = (() => {
      try {
        return readFileSync(CONFIGURATION_PAGE, 'utf8');
      } catch {
        return '';
      }
    })();
    if (current !== expected) {
      process.stderr.write('docs/configuration.md differs from the configuration tables in code: run npm run docs:config\n');
      process.exit(1);
    }
  } else {
    writeFileSync(CONFIGURATION_PAGE, expected);
    process.stdout.write(`wrote ${CONFIGURATION_PAGE}\n`);
  }
}
