// Placeholders (events stored, workflow.started not seen) are never served, by any query. Their data was
// chosen to match filters (status COMPLETED, amount 1000, error.status 418), so a leak would show here.
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { PLACEHOLDER_INSTANCE_IDS, PLACEHOLDER_TASK_IDS } from './conformance-events.js';
import { idsOf, rowsOf } from './served.js';

export function describePlaceholders(client: GraphQLClient): void {
  describe('placeholders', () => {
    for (const id of PLACEHOLDER_INSTANCE_IDS) {
      it(`${id} is not served by getWorkflowInstance or getTaskExecutionsByWorkflowInstance`, async () => {
        const result = await client.send(
          'query ($id: ID!) { getWorkflowInstance(id: $id) { id taskExecutions { id } } getTaskExecutionsByWorkflowInstance(workflowInstanceId: $id) { id } }',
          { id },
        );
        expect(result.errors).toEqual([]);
        expect(result.data).toEqual({ getWorkflowInstance: null, getTaskExecutionsByWorkflowInstance: [] });
      });
    }

    for (const id of PLACEHOLDER_TASK_IDS) {
      it(`${id} is not served by getTaskExecution`, async () => {
        const result = await client.send('query ($id: ID!) { getTaskExecution(id: $id) { id } }', { id });
        expect(result.errors).toEqual([]);
        expect(result.data).toEqual({ getTaskExecution: null });
      });
    }

    it('are absent from unfiltered lists and from lists filtered to match them', async () => {
      const instances = await client.data(
        `{ all: getWorkflowInstances(limit: 1000) { id }
           byId: getWorkflowInstances(filter: {id: {startsWith: "conformance-placeholder"}}) { id }
           completed: getWorkflowInstances(limit: 1000, filter: {status: {eq: COMPLETED}}) { id taskExecutions { id } }
           nameless: getWorkflowInstances(filter: {name: {isNull: true}}) { id } }`,
      );
      const allIds = idsOf(rowsOf(instances, 'all'));
      for (const id of PLACEHOLDER_INSTANCE_IDS) expect(allIds).not.toContain(id);
      expect(instances['byId']).toEqual([]);
      expect(idsOf(rowsOf(instances, 'completed')).filter((id) => id.startsWith('conformance-placeholder'))).toEqual([]);
      expect(instances['nameless']).toEqual([]);

      const tasks = await client.data(
        `{ all: getTaskExecutions(limit: 1000) { id }
           byName: getTaskExecutions(filter: {taskName: {eq: "orphanTask"}}) { id }
           byInstance: getTaskExecutions(filter: {workflowInstanceId: {startsWith: "conformance-placeholder"}}) { id }
           byError: getTaskExecutions(filter: {error: {status: {eq: 418}}}) { id }
           byInput: getTaskExecutions(filter: {inputArgs: {eq: [{key: "amount", value: "1000"}]}, workflowInstanceId: {ne: "conformance-json-numbers"}}) { id } }`,
      );
      const allTaskIds = idsOf(rowsOf(tasks, 'all'));
      for (const id of PLACEHOLDER_TASK_IDS) expect(allTaskIds).not.toContain(id);
      expect({ ...tasks, all: [] }).toEqual({ all: [], byName: [], byInstance: [], byError: [], byInput: [] });
    });
  });
}
