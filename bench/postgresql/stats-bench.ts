// npm run bench:stats [-- --instances 1000000 --tasks-per-instance 2 --duration 20 --queries a,b --keep-database
//   --reuse-database NAME]: the statistics queries on PostgreSQL over the bench dataset written by bulk SQL
// (server/postgresql/test/support/bench-dataset.ts), measured as bench/load/stats-measure.ts says (fixed 10 req/s and
// saturation, a point lookup as floor in the same run, the machine's load average). The 30-day queries read every
// run: the "range holds many more" case.
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { randomBytes } from 'node:crypto';
import { createPostgresqlReader, migrate } from '@workflow-index/postgresql';
import { generateDataset } from '@workflow-index/postgresql/testing';
import { round } from '../load/http-load.js';
import { checkStats, measureStats } from '../load/stats-measure.js';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 1_000_000 })
  .option('tasks-per-instance', { type: 'number', default: 2 })
  .option('duration', { type: 'number', default: 20, describe: 'seconds per measurement' })
  .option('queries', { type: 'string', describe: 'comma-separated parts of the query names to measure (default: all)' })
  .option('keep-database', { type: 'boolean', default: false, describe: 'keep the generated database (its name is printed) for --reuse-database' })
  .option('reuse-database', { type: 'string', describe: 'measure a database a previous --keep-database run generated (same --instances), migrated to this release first; kept at the end' })
  .option('database-url', { type: 'string', default: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres' })
  .strict()
  .parseSync();

const database = argv['reuse-database'] ?? `wi_bench_stats_${randomBytes(4).toString('hex')}`;
const url = new URL(argv['database-url']);
const admin = new pg.Client({ connectionString: argv['database-url'] });
await admin.connect();
if (argv['reuse-database'] === undefined) await admin.query(`CREATE DATABASE ${database}`);
url.pathname = `/${database}`;
try {
  const owner = new pg.Client({ connectionString: url.toString() });
  await owner.connect();
  const loadStart = performance.now();
  await migrate(owner);
  if (argv['reuse-database'] === undefined) await generateDataset(owner, argv.instances, argv['tasks-per-instance']);
  else await owner.query('VACUUM ANALYZE workflow_index.workflow_instances');
  await owner.end();
  console.log(`dataset ${database}: ${argv.instances} runs x ${argv['tasks-per-instance']} tasks over 30 days (${round(argv.instances / 30, 0)} runs a day), ready in ${round((performance.now() - loadStart) / 1000, 1)} s`);
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on('error', () => undefined); // an idle session ended by the DROP DATABASE at the end is no failure
  const reader = createPostgresqlReader({ pool });
  try {
    await checkStats(reader, argv.instances);
    await measureStats(reader, argv.instances, argv.duration, argv.queries?.split(',') ?? null);
  } finally {
    await reader.close();
  }
} finally {
  if (argv['keep-database'] || argv['reuse-database'] !== undefined) console.log(`kept database ${database}`);
  else await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
