// Keyset pagination: `after: <cursor of a served row>` continues the same order after that row, for every orderBy
// key in both directions (nulls last, id last), combined with filters and offset; cursors are exact (the format
// is pinned here, so every backend produces the same cursor for the same row); bad cursors are BAD_USER_INPUT.
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES, ALL_TASKS, PAGING_IDS, type ExpectedTask } from './expected-data.js';
import { ids, sortInstances, sortTasks, type Direction, type InstanceOrderKey, type TaskOrderKey } from './expected-order.js';
import { rowsOf } from './served.js';

const INSTANCE_KEYS: readonly InstanceOrderKey[] = ['id', 'name', 'namespace', 'version', 'status', 'startDate', 'endDate', 'lastUpdate'];
const TASK_KEYS: readonly TaskOrderKey[] = ['id', 'taskName', 'taskPosition', 'status', 'startDate', 'endDate'];
const DIRECTIONS: readonly Direction[] = ['ASC', 'DESC'];

/** A cursor's timestamp: the served instant with exactly six fractional digits. */
function sixDigits(served: string | null): string | null {
  if (served === null) return null;
  const match = /^(.*?)(?:\.(\d+))?Z$/.exec(served)!;
  return `${match[1]}.${(match[2] ?? '').padEnd(6, '0')}Z`;
}

/** The cursor format every backend serves: base64url of ["wi1", kind, ["field:DIR", …], [values…]]. */
function expectedCursor(kind: 'instances' | 'tasks', order: readonly (readonly [string, Direction])[], values: readonly (string | null)[]): string {
  return Buffer.from(JSON.stringify(['wi1', kind, order.map(([f, d]) => `${f}:${d}`), values]), 'utf8').toString('base64url');
}

export function describeCursors(client: GraphQLClient): void {
  type Page = { ids: string[]; cursors: (string | null)[] };
  const page = async (query: 'getWorkflowInstances' | 'getTaskExecutions', args: string, after: string | null): Promise<Page> => {
    const data = await client.data(
      `query ($after: String) { ${query}(${args}${args === '' ? '' : ', '}after: $after) { id cursor } }`,
      { after },
    );
    const rows = rowsOf(data, query);
    return { ids: rows.map((r) => String(r['id'])), cursors: rows.map((r) => (r['cursor'] === null ? null : String(r['cursor']))) };
  };
  /** Every page of `size` rows by following the last row's cursor, concatenated. */
  const walk = async (query: 'getWorkflowInstances' | 'getTaskExecutions', args: string, size: number): Promise<string[]> => {
    const all: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 1000; guard++) {
      const next = await page(query, `limit: ${size}${args === '' ? '' : `, ${args}`}`, after);
      all.push(...next.ids);
      if (next.ids.length < size) return all;
      after = next.cursors[next.cursors.length - 1] ?? null;
    }
    throw new Error('cursor walk did not end');
  };
  const badUserInput = async (query: string, variables?: Record<string, unknown>): Promise<string> => {
    const errors = await client.errors(query, variables);
    expect(errors.map((e) => e.extensions?.['code'])).toEqual(['BAD_USER_INPUT']);
    return errors[0]!.message;
  };

  describe('instances', () => {
    it('the cursor of a row is exact: its sort values under the query order, id last', async () => {
      const first = sortInstances(ALL_INSTANCES, [['startDate', 'DESC']])[0]!;
      const result = await page('getWorkflowInstances', 'limit: 1', null);
      expect(result.ids).toEqual(['paging-017']);
      expect(result.cursors).toEqual([expectedCursor('instances', [['startDate', 'DESC'], ['id', 'ASC']], [sixDigits(first.startDate), 'paging-017'])]);
      const byName = await page('getWorkflowInstances', 'limit: 1, orderBy: {namespace: DESC, name: ASC}', null);
      const expected = sortInstances(ALL_INSTANCES, [['namespace', 'DESC'], ['name', 'ASC']])[0]!;
      expect(byName.cursors).toEqual([
        expectedCursor('instances', [['namespace', 'DESC'], ['name', 'ASC'], ['id', 'ASC']], [expected.namespace, expected.name, expected.id]),
      ]);
      // aliases name the same field: startTime's cursor is startDate's
      const alias = await page('getWorkflowInstances', 'limit: 1, orderBy: {startTime: ASC}', null);
      const oldest = sortInstances(ALL_INSTANCES, [['startDate', 'ASC']])[0]!;
      expect(alias.cursors).toEqual([expectedCursor('instances', [['startDate', 'ASC'], ['id', 'ASC']], [sixDigits(oldest.startDate), oldest.id])]);
    });

    it('pages of the default order, each after the last cursor, concatenate to the whole list', async () => {
      expect(await walk('getWorkflowInstances', '', 20)).toEqual(ids(sortInstances(ALL_INSTANCES, [['startDate', 'DESC']])));
    });

    for (const key of INSTANCE_KEYS) {
      for (const direction of DIRECTIONS) {
        it(`walks orderBy: {${key}: ${direction}} (nulls last, then id) without gaps or repeats`, async () => {
          expect(await walk('getWorkflowInstances', `orderBy: {${key}: ${direction}}`, 25)).toEqual(ids(sortInstances(ALL_INSTANCES, [[key, direction]])));
        });
      }
    }

    it('walks several keys with nulls inside the order', async () => {
      const order: [InstanceOrderKey, Direction][] = [['endDate', 'DESC'], ['namespace', 'ASC']];
      expect(await walk('getWorkflowInstances', 'orderBy: {endDate: DESC, namespace: ASC}', 9)).toEqual(ids(sortInstances(ALL_INSTANCES, order)));
      expect(await walk('getWorkflowInstances', 'orderBy: {version: ASC, lastUpdate: DESC}', 11)).toEqual(
        ids(sortInstances(ALL_INSTANCES, [['version', 'ASC'], ['lastUpdate', 'DESC']])),
      );
    });

    it('continues after the row of the cursor under a filter, and offset counts after it', async () => {
      const cursorOf = async (id: string): Promise<string> => {
        const result = await page('getWorkflowInstances', `limit: 1, orderBy: {id: ASC}, filter: {id: {eq: "${id}"}}`, null);
        return result.cursors[0]!;
      };
      const after010 = await cursorOf('paging-010');
      expect(after010).toBe(expectedCursor('instances', [['id', 'ASC']], ['paging-010']));
      expect((await page('getWorkflowInstances', 'limit: 3, orderBy: {id: ASC}, filter: {namespace: {eq: "conformance.paging"}}', after010)).ids).toEqual(PAGING_IDS.slice(11, 14));
      expect((await page('getWorkflowInstances', 'limit: 3, offset: 2, orderBy: {id: ASC}, filter: {namespace: {eq: "conformance.paging"}}', after010)).ids).toEqual(PAGING_IDS.slice(13, 16));
      // the row itself need not match the filter: the cursor is a position, not a row
      const afterOrders = await cursorOf('01KRDQEES4VBNTZWX89D86KWZJ');
      expect((await page('getWorkflowInstances', 'limit: 2, orderBy: {id: ASC}, filter: {status: {eq: COMPLETED}}', afterOrders)).ids).toEqual([
        '01KRDQEHBQF7VKFR571KEFRHM5', 'conformance-json-array-root',
      ]);
      // after the last row: []
      expect((await page('getWorkflowInstances', 'orderBy: {id: ASC}', await cursorOf('paging-104'))).ids).toEqual([]);
    });

    it('a cursor passed as a literal works like one passed as a variable', async () => {
      const cursor = expectedCursor('instances', [['startDate', 'DESC'], ['id', 'ASC']], ['2026-05-13T16:00:00.200000Z', 'conformance-fullwidth']);
      const data = await client.data(`{ getWorkflowInstances(limit: 2, after: "${cursor}") { id } }`);
      const expected = ids(sortInstances(ALL_INSTANCES, [['startDate', 'DESC']]));
      const at = expected.indexOf('conformance-fullwidth');
      expect(rowsOf(data, 'getWorkflowInstances').map((r) => r['id'])).toEqual(expected.slice(at + 1, at + 3));
    });

    it('is null outside getWorkflowInstances (a single lookup, nested rows)', async () => {
      const data = await client.data('{ getWorkflowInstance(id: "paging-001") { cursor taskExecutions { cursor } } }');
      expect(data['getWorkflowInstance']).toEqual({ cursor: null, taskExecutions: [{ cursor: null }] });
    });
  });

  describe('task executions', () => {
    it('the cursor of a row is exact', async () => {
      const first = sortTasks(ALL_TASKS, [['startDate', 'DESC']])[0]!;
      const result = await page('getTaskExecutions', 'limit: 1', null);
      expect(result.ids).toEqual([first.id]);
      expect(result.cursors).toEqual([expectedCursor('tasks', [['startDate', 'DESC'], ['id', 'ASC']], [sixDigits(first.startDate), first.id])]);
    });

    for (const key of TASK_KEYS) {
      for (const direction of DIRECTIONS) {
        it(`walks orderBy: {${key}: ${direction}} without gaps or repeats`, async () => {
          expect(await walk('getTaskExecutions', `orderBy: {${key}: ${direction}}`, 40)).toEqual(ids(sortTasks(ALL_TASKS, [[key, direction]])));
        });
      }
    }

    it('walks a filtered list: the tasks of one instance, oldest first', async () => {
      const filter = 'filter: {workflowInstanceId: {eq: "conformance-waiting"}}, orderBy: {enter: ASC}';
      expect(await walk('getTaskExecutions', filter, 1)).toEqual(['conformance-waiting:do/0/waitForApproval', 'conformance-waiting:do/1/lateCompletion']);
      const tasks: readonly ExpectedTask[] = ALL_TASKS.filter((t) => t.taskName === 'step');
      expect(await walk('getTaskExecutions', 'filter: {taskName: {eq: "step"}}, orderBy: {exit: DESC}', 30)).toEqual(ids(sortTasks(tasks, [['exit', 'DESC']])));
    });
  });

  describe('bad cursors', () => {
    const instances = 'query ($after: String) { getWorkflowInstances(after: $after) { id } }';
    it('a malformed cursor is BAD_USER_INPUT', async () => {
      for (const after of ['', 'not a cursor!', 'abc', Buffer.from('[1,2]').toString('base64url'), 'x'.repeat(9000)]) {
        expect(await badUserInput(instances, { after })).toMatch(/^after is not a cursor of getWorkflowInstances/);
      }
    });

    it('an edited cursor is BAD_USER_INPUT', async () => {
      const order: [string, Direction][] = [['startDate', 'DESC'], ['id', 'ASC']];
      for (const values of [['yesterday', 'paging-001'], ['2026-05-13T16:00:00.200000Z', null], ['2026-05-13T16:00:00.2Z', 'x'], ['2026-05-13T16:00:00.200000Z', 7], ['2026-05-13T16:00:00.200000Z']]) {
        expect(await badUserInput(instances, { after: expectedCursor('instances', order, values as (string | null)[]) })).toMatch(/^after is not a cursor/);
      }
      expect(await badUserInput(instances, { after: expectedCursor('instances', order, ['2026-05-13T16:00:00.200000Z', 'a\u0000b']) })).toMatch(/NUL/);
    });

    // Edited times that look like the served form but are no instant (V8's Date.parse accepts all of them): they must
    // never reach a backend (PostgreSQL: 22008 or 24:00 read as the next day; OpenSearch: a failed conversion).
    const IMPOSSIBLE_TIMES = ['2026-05-12T24:00:00.000000Z', '2026-02-30T00:00:00.000000Z', '2026-04-31T12:00:00.000000Z', '2025-02-29T00:00:00.000000Z', '0000-01-01T00:00:00.000000Z', '2026-05-12T23:59:60.000000Z'];
    it('a cursor with an impossible time (24:00, Feb 30, Apr 31, year 0000, second 60) is BAD_USER_INPUT', async () => {
      for (const time of IMPOSSIBLE_TIMES) {
        const after = expectedCursor('instances', [['startDate', 'DESC'], ['id', 'ASC']], [time, 'paging-001']);
        expect(await badUserInput(instances, { after })).toBe(
          'after is not a cursor of getWorkflowInstances (the startDate value is not a timestamp); pass the cursor field of a row this query returned',
        );
        const lastUpdate = expectedCursor('instances', [['lastUpdate', 'ASC'], ['id', 'ASC']], [time, 'paging-001']);
        expect(await badUserInput('query ($after: String) { getWorkflowInstances(orderBy: {lastUpdate: ASC}, after: $after) { id } }', { after: lastUpdate })).toMatch(
          /^after is not a cursor of getWorkflowInstances \(the lastUpdate value is not a timestamp\)/,
        );
        const task = expectedCursor('tasks', [['endDate', 'ASC'], ['id', 'ASC']], [time, 'conformance-waiting:do/0/waitForApproval']);
        expect(await badUserInput('query ($after: String) { getTaskExecutions(orderBy: {exit: ASC}, after: $after) { id } }', { after: task })).toMatch(
          /^after is not a cursor of getTaskExecutions \(the endDate value is not a timestamp\)/,
        );
      }
      // The bounds and a leap day are real instants and continue normally (startDate DESC: every row before them).
      const all = ids(sortInstances(ALL_INSTANCES, [['startDate', 'DESC']]));
      for (const [time, expected] of [['0001-01-01T00:00:00.000000Z', 0], ['9999-12-31T23:59:59.999999Z', all.length], ['2024-02-29T23:59:59.999999Z', 0]] as const) {
        const after = expectedCursor('instances', [['startDate', 'DESC'], ['id', 'ASC']], [time, 'paging-001']);
        const rows = rowsOf(await client.data('query ($after: String) { getWorkflowInstances(limit: 1000, after: $after) { id } }', { after }), 'getWorkflowInstances');
        expect(rows.length).toBe(Math.min(expected, 1000));
      }
    });

    it('a cursor of the other list query is BAD_USER_INPUT', async () => {
      const taskCursor = (await page('getTaskExecutions', 'limit: 1', null)).cursors[0]!;
      expect(await badUserInput(instances, { after: taskCursor })).toBe('after is a cursor of getTaskExecutions, not of getWorkflowInstances');
      const instanceCursor = (await page('getWorkflowInstances', 'limit: 1', null)).cursors[0]!;
      expect(await badUserInput('query ($after: String) { getTaskExecutions(after: $after) { id } }', { after: instanceCursor })).toBe(
        'after is a cursor of getWorkflowInstances, not of getTaskExecutions',
      );
    });

    it('a cursor used with another orderBy is BAD_USER_INPUT, also with limit: 0', async () => {
      const cursor = (await page('getWorkflowInstances', 'limit: 1, orderBy: {name: ASC}', null)).cursors[0]!;
      const message = 'after is a cursor of the order {name: ASC, id: ASC}, but this query orders by {name: DESC, id: ASC} (with id last); a cursor only continues the order it came from';
      expect(await badUserInput('query ($after: String) { getWorkflowInstances(orderBy: {name: DESC}, after: $after) { id } }', { after: cursor })).toBe(message);
      expect(await badUserInput('query ($after: String) { getWorkflowInstances(limit: 0, orderBy: {name: DESC}, after: $after) { id } }', { after: cursor })).toBe(message);
      expect(await badUserInput(instances, { after: cursor })).toMatch(/this query orders by \{startDate: DESC, id: ASC\}/);
    });
  });
}
