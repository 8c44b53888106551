// PostgreSQL and OpenSearch serve identical event histories (WorkflowInstance.events): the same lines into both
// through their real ingestion paths, every run's whole history (data and cursors included) compared byte for byte,
// then paged with small limits, each page continued by the cursor the backend gave. The lines hold what makes stored
// text differ between the stores if anything does: the real producer output (NUL escapes, 20-digit integers, 1.0E21,
// doubles with 17 significant digits, nine-digit ISO fractions), epoch-millis loops with ties, the event-history
// suite's duplicates and rejections, and lines every rule rejects (not JSON, a bad instance id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_EVENTS, loopStream, REAL_FORMATS, realFixture } from '@workflow-index/testkit';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { createTestNamespace, eventLines, openSearchReachable, type TestNamespace } from '@workflow-index/opensearch/testing';
import { type Pair, loadPair } from './support/backend-pair.js';

const available = (await openSearchReachable()) && (await postgresReachable());

const T = '1.7785772435E9';
const REJECTED_LINES = [
  `{"instanceId":"history-bad","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${T},"workflowName":"bad","workflowNamespace":"x","status":"RUNNING"}`,
  `{"instanceId":"history-bad","eventType":"io.serverlessworkflow.workflow.completed.v1","timestamp":"2026-02-30T00:00:00Z","status":"COMPLETED"}`,
  `{"instanceId":"history-bad","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":{"not":"a string"}}`,
  `{"instanceId":"history-bad","eventType":"io.serverlessworkflow.workflow.frobnicated.v1","timestamp":1.7785772436E9}`,
];

const LINES = [
  ...eventLines(HISTORY_EVENTS),
  ...REAL_FORMATS.flatMap((format) => realFixture(format).eventLines),
  ...loopStream({ seed: 11, format: 'epoch-millis', items: 40, instances: 2, chains: true }).lines,
  ...REJECTED_LINES,
];

const HISTORY = 'type time taskPosition taskName accepted rejection data cursor';
const RUN = `query ($id: ID!, $limit: Int, $after: String) { getWorkflowInstance(id: $id) { id status events(limit: $limit, after: $after) { ${HISTORY} } } }`;
// Without data: PostgreSQL then sends no stored text and orders by the digest it computed in SQL.
const RUN_WITHOUT_DATA = 'query ($id: ID!) { getWorkflowInstance(id: $id) { events(limit: 1000) { type time taskPosition accepted cursor } } }';

describe.skipIf(!available)('cross-backend: event histories', () => {
  let ns: TestNamespace;
  let pair: Pair | undefined;
  let runIds: string[] = [];

  beforeAll(async () => {
    ns = createTestNamespace();
    pair = await loadPair(ns, 'history', LINES, 'wi_cross_history');
    const data = await pair.postgresql.client.data('{ getWorkflowInstances(limit: 1000, orderBy: {id: ASC}) { id } }');
    runIds = (data['getWorkflowInstances'] as { id: string }[]).map((r) => r.id);
  }, 300_000);

  afterAll(async () => {
    await pair?.close();
    await ns?.drop();
  });

  async function both(variables: Record<string, unknown>, query = RUN): Promise<string> {
    const [p, o] = await Promise.all([pair!.postgresql.client.send(query, variables), pair!.opensearch.client.send(query, variables)]);
    expect({ variables, opensearch: o }).toEqual({ variables, opensearch: p });
    return JSON.stringify(p);
  }

  it('every run\'s whole history is the same JSON on both backends, with data and without', async () => {
    expect(runIds.length).toBeGreaterThan(25);
    let rejected = 0;
    for (const id of runIds) {
      const answer = JSON.parse(await both({ id, limit: 1000 })) as { data: { getWorkflowInstance: { events: { accepted: boolean }[] } } };
      rejected += answer.data.getWorkflowInstance.events.filter((e) => !e.accepted).length;
      await both({ id }, RUN_WITHOUT_DATA);
    }
    // The comparison covered rejected events too (the suite's, and history-bad's three).
    expect(rejected).toBeGreaterThanOrEqual(6);
  });

  it('pages of 7 continued by each backend\'s own cursor are the same on both', async () => {
    for (const id of runIds.slice(0, 12)) {
      let after: string | undefined;
      for (;;) {
        const answer = JSON.parse(await both({ id, limit: 7, ...(after === undefined ? {} : { after }) })) as { data: { getWorkflowInstance: { events: { cursor: string }[] } } };
        const events = answer.data.getWorkflowInstance.events;
        if (events.length < 7) break;
        after = events[events.length - 1]!.cursor;
      }
    }
  });
});
