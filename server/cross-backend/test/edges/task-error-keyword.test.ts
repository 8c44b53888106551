// Same answers on both backends: a task.completed event whose error title is beyond Lucene's 32,766-byte term limit.
// The error object of a completed or cancelled task is bounded as a fault's (raw-event-parse.ts errorObjectProblem,
// 050-parse-events.sql), so both refuse and record the event; before, OpenSearch refused the execution document
// (error.title is a plain keyword) while PostgreSQL served the execution.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothAvailable, loadBackendPair, type BackendPair, summary, taskCompleted, taskStarted, workflowStarted } from './backend-pair.js';

const available = await bothAvailable();

describe.skipIf(!available)('a task.completed error with a title beyond the keyword term limit', () => {
  let pair: BackendPair;
  beforeAll(async () => {
    pair = await loadBackendPair('taskerr', [
      workflowStarted('te-1', '2026-05-12T09:00:00.000001Z'),
      taskStarted('te-1', 'do/0/t', '2026-05-12T09:00:01.000001Z'),
      taskCompleted('te-1', 'do/0/t', '2026-05-12T09:00:02.000001Z', { error: { title: 'T'.repeat(40_000), status: 500 } }),
      taskStarted('te-1', 'do/1/u', '2026-05-12T09:00:03.000001Z'),
    ]);
  }, 180_000);
  afterAll(async () => {
    await pair?.close();
  });

  it('getTaskExecutionsByWorkflowInstance answers the same', async () => {
    const q = `{ getTaskExecutionsByWorkflowInstance(workflowInstanceId: "te-1") { id status error { status } } }`;
    const { postgresql, opensearch } = await pair.send(q);
    expect(summary(opensearch)).toBe(summary(postgresql));
  });

  it('a filter on error.status answers the same', async () => {
    const q = `{ getTaskExecutions(filter: {error: {status: {eq: 500}}}) { id } }`;
    const { postgresql, opensearch } = await pair.send(q);
    expect(summary(opensearch)).toBe(summary(postgresql));
  });
});
