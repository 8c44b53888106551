// What the normalizer records for the two records our Fluent Bit join script marks (join-partial-lines.lua): a line
// cut at the 8 MiB join limit (the line's size, and the instance its kept text names) and the end of a line whose
// beginning a stopped Fluent Bit held (observed: `missing eventType`, no instance id, or nothing at all).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/test-database.js';
import { rawInsertStatement } from './support/raw-statement.js';

const available = await postgresReachable();

describe.skipIf(!available)('ingest errors of lines the join script cut or could not join', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('names the line\'s size and its instance for a cut line, and the lost beginning for an orphan end, beside a good event', async () => {
    const kept = `{"eventType":"io.serverlessworkflow.workflow.started.v1","instanceId":"big-1","timestamp":1778577243.5,"input":{"notes":"${'x'.repeat(1000)}`;
    const good = '{"eventType":"io.serverlessworkflow.workflow.started.v1","instanceId":"good-1","timestamp":1778577243.5,"workflowName":"w"}';
    const records = [
      { line: JSON.stringify({ time: '2026-05-12T09:14:03.5Z', stream: 'stdout', _p: 'F', log: kept, wi_join_truncated: '9437184' }), recordTime: '1778577243.5' },
      { line: good, recordTime: '1778577243.5' },
      { line: JSON.stringify({ time: '2026-05-12T09:14:04Z', stream: 'stdout', _p: 'F', log: 'xxxx"}}', wi_join_orphan: '7' }), recordTime: '1778577244' },
    ];
    await db.pool.query(rawInsertStatement('workflow_raw.workflow_events_raw', 'workflow-index.unparsed', records));
    const errors = await db.pool.query('SELECT instance_id, reason FROM workflow_index.ingest_errors ORDER BY raw_id');
    expect(errors.rows).toEqual([
      { instance_id: 'big-1', reason: 'line of 9437184 bytes is longer than the forwarder\'s 8388608-byte limit: its text up to the limit is kept, the event is not read' },
      { instance_id: null, reason: 'the last 7 bytes of a line whose beginning was lost (held by the forwarder when it stopped)' },
    ]);
    expect((await db.pool.query('SELECT id FROM workflow_index.workflow_instances')).rows).toEqual([{ id: 'good-1' }]);
  });
});
