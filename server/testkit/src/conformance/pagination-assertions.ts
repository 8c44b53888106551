// Pagination with the default configuration (default limit 100, maximum 1000) and its error shapes.
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES, ALL_TASKS, PAGING_IDS } from './expected-data.js';
import { ids, sortInstances, sortTasks } from './expected-order.js';
import { idsOf, rowsOf } from './served.js';

const DEFAULT_INSTANCE_ORDER = ids(sortInstances(ALL_INSTANCES, [['startDate', 'DESC']]));
const DEFAULT_TASK_ORDER = ids(sortTasks(ALL_TASKS, [['startDate', 'DESC']]));

/** `statementPrice`: what one field's statement costs on the backend (Reader.workPrices), known once it is set up. */
export function describePagination(client: GraphQLClient, statementPrice: () => number): void {
  const instanceIds = async (args: string, variables?: Record<string, unknown>, declarations = '') => {
    const data = await client.data(`query ${declarations} { getWorkflowInstances${args === '' ? '' : `(${args})`} { id } }`, variables);
    return idsOf(rowsOf(data, 'getWorkflowInstances'));
  };
  const taskIds = async (args: string) => {
    const data = await client.data(`{ getTaskExecutions${args === '' ? '' : `(${args})`} { id } }`);
    return idsOf(rowsOf(data, 'getTaskExecutions'));
  };
  const badUserInput = async (query: string, variables?: Record<string, unknown>) => {
    const errors = await client.errors(query, variables);
    expect(errors.map((e) => e.extensions?.['code'])).toEqual(['BAD_USER_INPUT']);
    return errors[0]!.message;
  };

  describe('instances', () => {
    it('limit: 20, offset: 40 returns results 41-60', async () => {
      expect(await instanceIds('limit: 20, offset: 40, filter: {namespace: {eq: "conformance.paging"}}, orderBy: {id: ASC}')).toEqual(PAGING_IDS.slice(40, 60));
      expect(await instanceIds('limit: 20, offset: 40')).toEqual(DEFAULT_INSTANCE_ORDER.slice(40, 60));
    });

    it('limit and offset work through variables', async () => {
      expect(await instanceIds('limit: $limit, offset: $offset, orderBy: {id: DESC}', { limit: 3, offset: 2 }, '($limit: Int, $offset: Int)')).toEqual(
        [...PAGING_IDS].reverse().slice(2, 5),
      );
    });

    it('consecutive pages of the default order concatenate to the whole list, without gaps or repeats', async () => {
      const pages: string[] = [];
      for (let offset = 0; offset < ALL_INSTANCES.length; offset += 20) pages.push(...(await instanceIds(`limit: 20, offset: ${offset}`)));
      expect(pages).toEqual(DEFAULT_INSTANCE_ORDER);
    });

    it(`the default limit is 100 (${ALL_INSTANCES.length} instances exist)`, async () => {
      expect(await instanceIds('')).toEqual(DEFAULT_INSTANCE_ORDER.slice(0, 100));
      expect(await instanceIds('offset: 100')).toEqual(DEFAULT_INSTANCE_ORDER.slice(100));
    });

    it('limit: 1000 (the maximum) is allowed', async () => {
      expect(await instanceIds('limit: 1000')).toEqual(DEFAULT_INSTANCE_ORDER);
    });

    it('limit: 0 returns []', async () => {
      expect(await instanceIds('limit: 0')).toEqual([]);
      expect(await instanceIds('limit: 0, offset: 5, filter: {status: {eq: COMPLETED}}')).toEqual([]);
    });

    it('an offset at or past the end returns []', async () => {
      expect(await instanceIds(`offset: ${ALL_INSTANCES.length}`)).toEqual([]);
      expect(await instanceIds('offset: 5000, limit: 10')).toEqual([]);
      expect(await instanceIds(`offset: ${ALL_INSTANCES.length - 1}, limit: 10`)).toEqual(DEFAULT_INSTANCE_ORDER.slice(-1));
    });

    it('a limit over the maximum is BAD_USER_INPUT naming the bound', async () => {
      expect(await badUserInput('{ getWorkflowInstances(limit: 1001) { id } }')).toMatch(/1000/);
      expect(await badUserInput('query ($l: Int) { getWorkflowInstances(limit: $l) { id } }', { l: 5000 })).toMatch(/1000/);
    });

    it('an offset deeper than the cost budget allows (1 per 10 skipped rows) is BAD_USER_INPUT pointing to after; the deepest allowed answers', async () => {
      // 20 rows + offset / 10 + the statement's price = 20,000, the default budget
      const deepest = (20_000 - 20 - statementPrice()) * 10;
      expect(await instanceIds(`limit: 20, offset: ${deepest}`)).toEqual([]);
      expect(await badUserInput(`{ getWorkflowInstances(limit: 20, offset: ${deepest + 10}) { id } }`)).toMatch(/^Query cost 20001 exceeds the budget of 20000 rows.*offset.*after: <cursor>/);
      expect(await badUserInput('query ($o: Int) { getTaskExecutions(offset: $o) { id } }', { o: 2_147_483_647 })).toMatch(new RegExp(`^Query cost ${214_748_465 + statementPrice()} exceeds`));
    });

    it('a negative limit or offset is BAD_USER_INPUT naming the bound', async () => {
      expect(await badUserInput('{ getWorkflowInstances(limit: -1) { id } }')).toMatch(/limit.*(\b0\b|negative)/);
      expect(await badUserInput('{ getWorkflowInstances(offset: -1) { id } }')).toMatch(/offset.*(\b0\b|negative)/);
    });
  });

  describe('task executions', () => {
    it('limit: 20, offset: 40 returns results 41-60', async () => {
      expect(await taskIds('limit: 20, offset: 40, filter: {taskName: {eq: "step"}}, orderBy: {id: ASC}')).toEqual(
        PAGING_IDS.slice(40, 60).map((id) => `${id}:do/0/step`),
      );
      expect(await taskIds('limit: 20, offset: 40')).toEqual(DEFAULT_TASK_ORDER.slice(40, 60));
    });

    it(`the default limit is 100 (${ALL_TASKS.length} task executions exist)`, async () => {
      expect(await taskIds('')).toEqual(DEFAULT_TASK_ORDER.slice(0, 100));
    });

    it('limit: 0 returns [], an offset past the end returns []', async () => {
      expect(await taskIds('limit: 0')).toEqual([]);
      expect(await taskIds('offset: 1000')).toEqual([]);
    });

    it('out-of-range limit and offset are BAD_USER_INPUT naming the bound', async () => {
      expect(await badUserInput('{ getTaskExecutions(limit: 1001) { id } }')).toMatch(/1000/);
      expect(await badUserInput('{ getTaskExecutions(limit: -5) { id } }')).toMatch(/limit.*(\b0\b|negative)/);
      expect(await badUserInput('{ getTaskExecutions(offset: -5) { id } }')).toMatch(/offset.*(\b0\b|negative)/);
    });
  });
}
