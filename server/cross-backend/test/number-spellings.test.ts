// One event delivered in two spellings of its numbers — as the producer printed them (`init-job ingest`, a writer
// that keeps the text) and as Fluent Bit re-prints them (%.16g) — is one event on both backends (its identity reads
// numbers canonically), and each serves it as the first delivery printed it: never rewritten, never switched by the
// later spelling (docs/write-path.md "Event identity and order"). fast-check over numbers and which spelling comes
// first, each delivery its own flush (PostgreSQL) and its own bulk and cycle (OpenSearch).
// What "as printed" is on OpenSearch: its ingest pipeline re-serializes `_source` (Java's doubles), so the normalizer
// reads every number with a fraction or exponent as Fluent Bit prints that double (asForwarded), whoever wrote it;
// integers keep their digits (beyond uint64 Fluent Bit prints a double: two spellings there too). So with Fluent
// Bit's spelling first both backends serve the very same documents; with the producer's first, PostgreSQL serves its
// digits and OpenSearch what its raw index holds of them.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import { fluentBitJson } from '@workflow-index/events';
import { fluentBitInsertStatementForTexts, TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE, withRecordTimeFirst } from '@workflow-index/postgresql';
import type { TestDatabase } from '@workflow-index/postgresql/testing';
import { asForwarded, fluentBitTimestamp, jsonbText, logstashIndexName, parseLosslessJson, TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX } from '@workflow-index/opensearch';
import type { JsonObject } from '@workflow-index/opensearch';
import type { TestNamespace } from '@workflow-index/opensearch/testing';
import { leasedNormalizer, openSearchState } from '@workflow-index/opensearch/testing';
import { crossTest as it, describeBoth } from './support/fixtures.js';
import { postgresqlState } from './support/postgresql-twin.js';

const RECORD_TIME = Date.UTC(2026, 4, 12, 9, 14, 3);

/** A number as producers print it: 17 significant digits, Java's exponent form, integral doubles, big integers. */
const double = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e20, max: 1e20 }).filter((x) => x === 0 || Math.abs(x) >= 1e-300);
const printedNumber = fc.oneof(
  double.map((x) => x.toPrecision(17)),
  double.map((x) => x.toExponential().toUpperCase().replace('E+', 'E')),
  fc.integer({ min: -1e9, max: 1e9 }).map((n) => `${n}.0`),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => n.toString()),
  fc.constantFrom('99.99', '-3.0E-7', '0.30000000000000004', '12345678901234567890', '1.7954415230510702E9'),
);

/** The event lines of one run whose payloads hold `numbers`, as the producer printed them. */
function producerLines(id: string, numbers: readonly string[]): string[] {
  const payload = `{"values":[${numbers.join(',')}],"nested":{"x":${numbers[0]}}}`;
  return [
    `{"eventType":"io.serverlessworkflow.workflow.started.v1","instanceId":"${id}","timestamp":1.7785772435127E9,"workflowName":"w","input":${payload}}`,
    `{"eventType":"io.serverlessworkflow.task.started.v1","instanceId":"${id}","timestamp":1.7785772436E9,"taskPosition":"do/0/t","input":${payload}}`,
    `{"eventType":"io.serverlessworkflow.task.completed.v1","instanceId":"${id}","timestamp":1.7785772441E9,"taskPosition":"do/0/t","output":${payload}}`,
  ];
}

const isTask = (line: string): boolean => line.includes('.task.');

/** One flush per table, each line's text kept (a writer that keeps the producer's bytes, as `init-job ingest`). */
async function flushToPostgreSQL(db: TestDatabase, lines: readonly string[]): Promise<void> {
  for (const task of [false, true]) {
    const texts = lines.filter((l) => isTask(l) === task).map((l) => withRecordTimeFirst(l, RECORD_TIME / 1000));
    await db.pool.query(`SET search_path = workflow_raw; ${fluentBitInsertStatementForTexts(task ? TASK_EVENTS_TABLE : WORKFLOW_EVENTS_TABLE, task ? 'workflow.task' : 'workflow.instance', texts)}; RESET search_path`);
  }
}

/** One bulk request whose documents keep each line's text (the time key first), as a raw writer would send it. */
async function bulkToOpenSearch(ns: TestNamespace, prefix: string, lines: readonly string[]): Promise<void> {
  const body = lines.map((line) => {
    const source = `{"@timestamp":"${fluentBitTimestamp(RECORD_TIME)}",${line.slice(1)}`;
    const index = logstashIndexName(`${prefix}${isTask(line) ? TASK_RAW_PREFIX : WORKFLOW_RAW_PREFIX}`, RECORD_TIME);
    return `${JSON.stringify({ create: { _index: index, _id: createHash('sha256').update(source).digest('hex') } })}\n${source}\n`;
  }).join('');
  const answer = await ns.client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: body });
  expect((answer.body as { errors: boolean }).errors).toBe(false);
  await ns.refresh();
}

describeBoth('two spellings of one event\'s numbers', () => {
  let ns: TestNamespace;
  let db: TestDatabase;
  it.beforeAll(({ namespace, database }) => {
    ns = namespace;
    db = database;
  });

  let run = 0;
  it('stored once and served as the first delivery printed it; Fluent Bit\'s first: the same documents on both backends (fast-check)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(printedNumber, { minLength: 1, maxLength: 5 }), fc.boolean(), async (numbers, fluentBitFirst) => {
      const id = `spell-${run}`;
      const prefix = `${ns.prefix}s${run++}-`;
      const exact = producerLines(id, numbers);
      const reprinted = exact.map(fluentBitJson);
      const [first, second] = fluentBitFirst ? [reprinted, exact] : [exact, reprinted];
      const normalizer = await leasedNormalizer(ns.client, prefix);
      for (const lines of [first, second]) {
        await flushToPostgreSQL(db, lines);
        await bulkToOpenSearch(ns, prefix, lines);
        await normalizer.cycle();
      }
      const served = (await db.pool.query<{ i: string; o: string }>(`SELECT ($1::jsonb -> 'input')::text AS i, ($2::jsonb -> 'output')::text AS o`, [first[0], first[2]])).rows[0]!;
      const pg = await postgresqlState(db);
      const os = await openSearchState(ns.client, normalizer.names);
      const instance = pg.instances.find((i) => i.id === id);
      const executions = pg.executions.filter((e) => e.instance_id === id);
      expect(instance?.input_json).toBe(served.i);
      expect(executions.map((e) => [e.input_json, e.output_json])).toEqual([[served.i, served.o]]);
      // OpenSearch: the first delivery as its raw index holds it
      const payloadOf = (line: string, key: string): string => jsonbText((asForwarded(parseLosslessJson(line)) as JsonObject).get(key)!);
      const [osInput, osOutput] = [payloadOf(first[0]!, 'input'), payloadOf(first[2]!, 'output')];
      expect(os.instances.map((i) => i.input_json)).toEqual([osInput]);
      expect(os.executions.map((e) => [e.input_json, e.output_json])).toEqual([[osInput, osOutput]]);
      if (fluentBitFirst) {
        expect(os.instances).toEqual([instance]);
        expect(os.executions).toEqual(executions);
      }
      const stored = await db.pool.query<{ n: number }>(`SELECT (SELECT count(*) FROM workflow_index.events WHERE instance_id = $1)
        + (SELECT count(*) FROM workflow_index.task_events WHERE instance_id = $1) AS n`, [id]);
      expect(Number(stored.rows[0]!.n)).toBe(3);
      expect(pg.ingestErrors).toBe(0);
    }), { numRuns: 8, examples: [[['0.0000000000000000', '0.30000000000000004'], false], [['1180591620717411303424', '99.99'], false], [['-3.0E-7', '12345678901234567890'], true]] });
  }, 300_000);
});
