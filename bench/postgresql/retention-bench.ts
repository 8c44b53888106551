// npm run bench:retention [-- --instances N --flush 500 --rounds 3]
//
// What the event store and retention cost, each against a floor measured in the same run:
//  - ingestion through the triggers of this release (which also keep every event: workflow events in workflow_index.events, task events in task_events) against
//    the previous release's normalizer (no store), the same flushes, alternately, `rounds` times;
//  - rebuild_normalized() with the raw rows still there (store then raw replayed) and after raw retention (store
//    only), against the previous release's rebuild (raw only);
//  - init-job prune's raw batches (prune_raw_batch, 5000 rows) against plain DELETEs of the same rows by id from a
//    trigger-less copy of the raw tables.
// Prints one line per figure; the last line is one JSON object with them.
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { generateEventStream } from '../generators/event-generator.js';
import { loadMigrations, loadNormalizer, migrate } from '@workflow-index/postgresql/admin';
import { fluentBitInsertStatement, rawTableFor } from '@workflow-index/postgresql/admin';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 2000, describe: 'instances generated per round (≈20 events each)' })
  .option('flush', { type: 'number', default: 500, describe: 'events per Fluent Bit flush' })
  .option('rounds', { type: 'number', default: 3, describe: 'ingestion rounds, alternating between the two databases' })
  .option('database-url', { type: 'string', default: process.env['WI_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', describe: 'admin connection; scratch databases are created and dropped' })
  .strict()
  .parseSync();

const PREVIOUS_NORMALIZER = fileURLToPath(new URL('../../server/postgresql/test/support/previous-release-normalizer', import.meta.url));
const PRUNE_BATCH = 5000;

function flushes(tag: string): { statements: string[]; events: number } {
  const events = generateEventStream(argv.instances, tag);
  const byTable = new Map<string, Record<string, unknown>[]>();
  for (const e of events) {
    const t = rawTableFor(String(e['eventType']));
    byTable.set(t, [...(byTable.get(t) ?? []), e]);
  }
  const statements: string[] = [];
  for (const [t, list] of byTable) {
    for (let i = 0; i < list.length; i += argv.flush) statements.push(fluentBitInsertStatement(`workflow_raw.${t}`, 'bench', list.slice(i, i + argv.flush)));
  }
  return { statements, events: events.length };
}

async function seconds(work: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (n: number): number => Math.round(n);

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: argv['database-url'] });
  await admin.connect();
  const names = { previous: `wi_bench_ret_prev_${randomBytes(3).toString('hex')}`, current: `wi_bench_ret_${randomBytes(3).toString('hex')}` };
  const clients: Record<keyof typeof names, pg.Client> = {} as Record<keyof typeof names, pg.Client>;
  try {
    for (const [key, name] of Object.entries(names) as [keyof typeof names, string][]) {
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(argv['database-url']);
      url.pathname = `/${name}`;
      clients[key] = new pg.Client({ connectionString: url.toString() });
      await clients[key].connect();
    }
    await migrate(clients.previous, { migrations: loadMigrations().filter((m) => m.version <= 3), normalizer: loadNormalizer(PREVIOUS_NORMALIZER) });
    await migrate(clients.current);

    const ingest = { previous: [] as number[], current: [] as number[] };
    let eventsPerRound = 0;
    for (let r = 0; r < argv.rounds; r++) {
      const { statements, events } = flushes(`r${r}-`);
      eventsPerRound = events;
      for (const key of (r % 2 === 0 ? ['previous', 'current'] : ['current', 'previous']) as (keyof typeof names)[]) {
        const s = await seconds(async () => {
          for (const sql of statements) await clients[key].query(sql);
        });
        ingest[key].push(events / s);
      }
    }
    const ingestFigures = { events: eventsPerRound * argv.rounds, currentEventsPerSecond: round(median(ingest.current)), previousEventsPerSecond: round(median(ingest.previous)) };
    console.log(`ingest (median of ${argv.rounds} rounds of ${eventsPerRound} events, flushes of ${argv.flush}): ${ingestFigures.currentEventsPerSecond} events/s with the event store; floor, previous release: ${ingestFigures.previousEventsPerSecond} events/s; ratio ${(ingestFigures.currentEventsPerSecond / ingestFigures.previousEventsPerSecond).toFixed(2)}`);

    const rebuild = async (c: pg.Client): Promise<{ events: number; seconds: number }> => {
      let events = 0;
      const s = await seconds(async () => {
        events = Number((await c.query<{ n: string }>('SELECT workflow_index.rebuild_normalized() AS n')).rows[0]!.n);
      });
      return { events, seconds: s };
    };
    const rebuildPrevious = await rebuild(clients.previous);
    const rebuildBoth = await rebuild(clients.current);

    // Floor for prune: the same raw rows, deleted by id in batches of the same size from trigger-less copies.
    await clients.current.query(`CREATE SCHEMA bench_floor;
      CREATE TABLE bench_floor.workflow_events_raw AS SELECT * FROM workflow_raw.workflow_events_raw;
      CREATE TABLE bench_floor.task_events_raw AS SELECT * FROM workflow_raw.task_events_raw;
      ALTER TABLE bench_floor.workflow_events_raw ADD PRIMARY KEY (id); ALTER TABLE bench_floor.task_events_raw ADD PRIMARY KEY (id);`);
    let floorRows = 0;
    const floorSeconds = await seconds(async () => {
      for (const t of ['workflow_events_raw', 'task_events_raw']) {
        for (;;) {
          const res = await clients.current.query(`DELETE FROM bench_floor.${t} WHERE id IN (SELECT id FROM bench_floor.${t} ORDER BY id LIMIT ${PRUNE_BATCH})`);
          floorRows += res.rowCount ?? 0;
          if ((res.rowCount ?? 0) === 0) break;
        }
      }
    });
    let pruned = 0;
    const pruneSeconds = await seconds(async () => {
      for (const t of ['workflow_events_raw', 'task_events_raw']) {
        let after = 0;
        for (;;) {
          const row = (await clients.current.query<{ deleted: string; last_id: string | null }>(
            `SELECT * FROM workflow_index.prune_raw_batch($1, 'infinity', $2, ${PRUNE_BATCH})`, [t, after])).rows[0];
          if (!row || row.last_id === null) break;
          pruned += Number(row.deleted);
          after = Number(row.last_id);
        }
      }
    });
    if (pruned !== floorRows) throw new Error(`prune deleted ${pruned} rows, the floor ${floorRows}`);
    const rebuildStore = await rebuild(clients.current);
    const storeSize = (await clients.current.query<{ s: string }>(`SELECT pg_size_pretty(pg_total_relation_size('workflow_index.events') + pg_total_relation_size('workflow_index.task_events')) AS s`)).rows[0]!.s;

    const figures = {
      ...ingestFigures,
      ingestRatio: Number((ingestFigures.currentEventsPerSecond / ingestFigures.previousEventsPerSecond).toFixed(3)),
      pruneRowsPerSecond: round(pruned / pruneSeconds),
      pruneFloorRowsPerSecond: round(floorRows / floorSeconds),
      prunedRows: pruned,
      rebuildPreviousEventsPerSecond: round(rebuildPrevious.events / rebuildPrevious.seconds),
      rebuildStoreAndRawSeconds: Number(rebuildBoth.seconds.toFixed(2)),
      rebuildStoreOnlySeconds: Number(rebuildStore.seconds.toFixed(2)),
      rebuildPreviousSeconds: Number(rebuildPrevious.seconds.toFixed(2)),
      storeSize,
    };
    console.log(`prune raw: ${pruned} rows at ${figures.pruneRowsPerSecond} rows/s in batches of ${PRUNE_BATCH}; floor, plain deletes by id: ${figures.pruneFloorRowsPerSecond} rows/s`);
    console.log(`rebuild: ${figures.rebuildStoreAndRawSeconds} s with the raw rows still there (${rebuildBoth.events} events replayed), ${figures.rebuildStoreOnlySeconds} s after raw retention (${rebuildStore.events}); floor, previous release (raw only): ${figures.rebuildPreviousSeconds} s (${rebuildPrevious.events})`);
    console.log(`event store: ${storeSize} for ${rebuildStore.events} events`);
    console.log(JSON.stringify(figures));
  } finally {
    for (const c of Object.values(clients)) await c.end().catch(() => undefined);
    for (const name of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
