// npm run bench:event-history [-- --items 10,100,1000 --repeat 30]
//
// What a page of a run's event history (WorkflowInstance.events) costs on PostgreSQL, against a floor measured in the
// same run on the same database: the run alone (`getWorkflowInstance { id status }`). One run per size, its events
// written through Fluent Bit's statement and the real trigger (a seeded epoch-millis loop stream, payloads on), then
// through the whole server in this process (GraphQL, resolvers, the reader): the median time of --repeat requests of
// the first page of 100 events without and with `data`, and of the run's last page (after a cursor near its end).
// Every page reads the run's whole history (docs/api.md, Event history): the ratio grows with the history.
// Beside them, where the time goes: the statement alone and the reader's call (the statement and the records made from
// its rows). The last line printed is one JSON object with every figure.
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { createApp, defaultCoreConfig } from '@workflow-index/core';
import { createPostgresqlReader, EVENTS_OF_INSTANCES_SQL } from '@workflow-index/postgresql';
import { createTestDatabase, loadEvents } from '@workflow-index/postgresql/testing';
import { loopStream, postGraphQL } from '@workflow-index/testkit';

const argv = yargs(hideBin(process.argv))
  .option('items', { type: 'string', default: '10,100,1000', describe: 'loop items of each measured run (one run per value)' })
  .option('repeat', { type: 'number', default: 30, describe: 'requests per shape; the median is reported' })
  .strict()
  .parseSync();

const log = (line: string): void => void process.stdout.write(`${line}\n`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const FLOOR = 'query ($id: ID!) { getWorkflowInstance(id: $id) { id status } }';
const PAGE = 'query ($id: ID!, $after: String) { getWorkflowInstance(id: $id) { events(limit: 100, after: $after) { type time taskPosition accepted rejection cursor } } }';
const PAGE_DATA = 'query ($id: ID!) { getWorkflowInstance(id: $id) { events(limit: 100) { type time accepted data } } }';

const database = await createTestDatabase({ prefix: 'wi_bench_history' });
const config = defaultCoreConfig('production');
const reader = createPostgresqlReader({ pool: database.pool, ownsPool: false });
const app = createApp({ config: { ...config, graphql: { ...config.graphql, maxCost: 1_000_000_000, maxCostInFlight: 0 } }, reader, logger: pino({ level: 'silent' }), backend: 'postgresql' });

async function medianOf(task: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < argv.repeat; i++) {
    const start = performance.now();
    await task();
    times.push(performance.now() - start);
  }
  return median(times);
}

const timed = (query: string, variables: Record<string, unknown>): Promise<number> =>
  medianOf(async () => {
    const res = await postGraphQL(app, query, variables);
    if (res.body.errors !== undefined) throw new Error(JSON.stringify(res.body.errors));
  });

const runs: Record<string, number>[] = [];
try {
  for (const [k, items] of argv.items.split(',').map(Number).entries()) {
    const stream = loopStream({ seed: 100 + k, format: 'epoch-millis', items, instances: 1, payloads: true });
    await loadEvents(database.pool, stream.lines.map((line) => JSON.parse(line) as Record<string, unknown>), { batchSizes: [1000] });
    const id = stream.instanceIds[0]!;
    const whole = await postGraphQL(app, 'query ($id: ID!) { getWorkflowInstance(id: $id) { events(limit: 1000) { cursor } } }', { id });
    const cursors = ((whole.body.data as { getWorkflowInstance: { events: { cursor: string }[] } }).getWorkflowInstance.events).map((e) => e.cursor);
    const nearEnd = cursors[Math.max(0, cursors.length - 50)]!;
    const floorMs = await timed(FLOOR, { id });
    const firstPageMs = await timed(PAGE, { id });
    const dataPageMs = await timed(PAGE_DATA, { id });
    const lastPageMs = await timed(PAGE, { id, after: nearEnd });
    // Where a page's time goes: the statement alone, and the reader (statement and the records derived from it).
    const sqlMs = await medianOf(() => database.pool.query(EVENTS_OF_INSTANCES_SQL, [[id], false]));
    const readerMs = await medianOf(() => reader.eventsOfInstances([id], { payloads: false }));
    const figures = { items, events: stream.lines.length, floorMs, firstPageMs, dataPageMs, lastPageMs, sqlMs, readerMs, ratio: firstPageMs / floorMs, dataRatio: dataPageMs / floorMs };
    runs.push(figures);
    log(`${String(figures.events).padStart(6)} events: floor ${floorMs.toFixed(2)} ms, first page ${firstPageMs.toFixed(2)} ms (×${figures.ratio.toFixed(2)}), with data ${dataPageMs.toFixed(2)} ms (×${figures.dataRatio.toFixed(2)}), last page ${lastPageMs.toFixed(2)} ms; statement ${sqlMs.toFixed(2)} ms, reader ${readerMs.toFixed(2)} ms`);
  }
} finally {
  await app.dispose();
  await reader.close();
  await database.drop();
}
log(JSON.stringify({ backend: 'postgresql', repeat: argv.repeat, runs }));
