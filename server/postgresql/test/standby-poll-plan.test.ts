// The standby's change poll (standby-change-poll.ts) reads the rows written since a stamp and the newest stamp from the
// updated_at indexes (migration 0018), not by reading both tables whole: with sequential scans disabled, the planner
// finds an index for every read of both statements. Plans, not timings.
import { expect } from 'vitest';
import { CHANGED_SINCE, NEWEST } from '../src/standby-change-poll.js';
import { describePostgres, postgresTest } from './support/fixtures.js';
import { loadEvents } from './support/load-events.js';
import { runStarted, taskStarted } from '@workflow-index/testkit';

const it = postgresTest({ prefix: 'wi_standby_poll' });

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly Plans?: readonly PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describePostgres('the standby change poll', () => {
  it('reads both tables through their updated_at indexes', async ({ database }) => {
    await loadEvents(database.pool, [runStarted('poll-1', 0), taskStarted('poll-1', 'do/0/step', 1), runStarted('poll-2', 2)]);
    const client = await database.pool.connect();
    try {
      await client.query('ANALYZE workflow_index.workflow_instances, workflow_index.task_executions');
      await client.query('SET enable_seqscan = off');
      for (const [text, values] of [[CHANGED_SINCE, [String(Date.now() * 1000 - 60_000_000), 1000]], [NEWEST, []]] as const) {
        const plan = (await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, [...values])).rows[0]!['QUERY PLAN'][0].Plan;
        const scans = nodesOf(plan).filter((n) => n['Relation Name'] !== undefined);
        expect(scans.map((n) => n['Relation Name']).sort()).toEqual(['task_executions', 'workflow_instances']);
        expect(scans.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
      }
    } finally {
      client.release();
    }
  });
});
