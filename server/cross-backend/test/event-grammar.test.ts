// The event grammar of @workflow-index/events against both normalizers: every type of its table is accepted as a
// type (no "unknown eventType") by PostgreSQL's parse_events and by OpenSearch's parseRawEvent, with the same reason
// (or none) for the same event; a type outside the table is unknown to both. A new event type that one backend does
// not know fails here.
import { expect } from 'vitest';
import { eventTypeOf, parseLosslessJson, TASK_ACTIONS, WORKFLOW_ACTIONS } from '@workflow-index/events';
import { parseRawEvent } from '@workflow-index/opensearch';
import type { TestDatabase } from '@workflow-index/postgresql/testing';
import { describePostgres, postgresTest } from './support/postgresql-fixtures.js';

const it = postgresTest({ prefix: 'wi_grammar' });

const AT = 1778577243.5;
const workflowEvent = (eventType: string): Record<string, unknown> => ({
  instanceId: 'grammar-1', eventType, timestamp: AT, startTime: AT, endTime: AT + 1, lastUpdateTime: AT,
  workflowNamespace: 'grammar', workflowName: 'grammar', workflowVersion: '1.0.0', status: 'RUNNING',
});
const taskEvent = (eventType: string): Record<string, unknown> => ({
  instanceId: 'grammar-1', eventType, timestamp: AT, startTime: AT, endTime: AT + 1, taskPosition: 'do/0/a', taskName: 'a', status: 'RUNNING',
});

const EVENTS: readonly Record<string, unknown>[] = [
  ...WORKFLOW_ACTIONS.map((action) => workflowEvent(eventTypeOf('workflow', action))),
  ...TASK_ACTIONS.map((action) => taskEvent(eventTypeOf('task', action))),
  workflowEvent('io.serverlessworkflow.workflow.paused.v1'),
  taskEvent('io.serverlessworkflow.task.skipped.v1'),
  taskEvent('io.serverlessworkflow.task.status-changed.v1'),
];
const KNOWN = WORKFLOW_ACTIONS.length + TASK_ACTIONS.length;

describePostgres('the event grammar on both backends', () => {
  let db: TestDatabase;
  it.beforeAll(async ({ database }) => {
    db = database;
  });

  it('both accept exactly the table\'s types, with the same reason for each event', async () => {
    const { rows } = await db.pool.query<{ reason: string | null }>(
      'SELECT reason FROM workflow_index.parse_events($1::BIGINT[], $2::JSONB[]) ORDER BY raw_id',
      [EVENTS.map((_, i) => i + 1), EVENTS.map((e) => JSON.stringify(e))],
    );
    const postgresql = rows.map((r) => r.reason);
    const opensearch = EVENTS.map((e) => {
      const result = parseRawEvent(parseLosslessJson(JSON.stringify(e)));
      return result.ok ? null : result.reason;
    });
    expect(opensearch).toEqual(postgresql);
    const unknown = postgresql.map((reason) => reason?.startsWith('unknown eventType') === true);
    expect(unknown).toEqual(EVENTS.map((_, i) => i >= KNOWN));
  });
});
