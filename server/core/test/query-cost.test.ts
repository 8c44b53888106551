// GRAPHQL_MAX_COST: the potential rows of a request, priced before anything runs.
import fc from 'fast-check';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../src/graphql-server.js';
import { operationCost } from '../src/query-cost.js';
import { loadSchemaSdl } from '../src/schema-sdl.js';
import { codes, postGraphQL, testApp, testConfig } from '@workflow-index/testkit';

const config = testConfig();
const schema = buildSchema(loadSchemaSdl(), config);
const cost = (query: string, variables?: Record<string, unknown>, operationName?: string) => operationCost(schema, parse(query), operationName, variables, config.graphql);

describe('operationCost', () => {
  it('a list counts its limit (default 100), a lookup 1, an unbounded task list 10, scalars and error objects nothing', () => {
    expect(cost('{ getWorkflowInstances { id error { title } } }')).toEqual({ total: 100, fields: [{ key: 'getWorkflowInstances', cost: 100 }] });
    expect(cost('{ getTaskExecutions(limit: 7) { id } }').total).toBe(7);
    expect(cost('{ getWorkflowInstance(id: "x") { id } getTaskExecution(id: "y") { id } }').total).toBe(2);
    expect(cost('{ getTaskExecutionsByWorkflowInstance(workflowInstanceId: "x") { id } }').total).toBe(10);
    expect(cost('{ __typename __schema { types { name } } }')).toEqual({ total: 0, fields: [] });
  });

  it('nested taskExecutions count per row of their list', () => {
    expect(cost('{ getWorkflowInstances(limit: 1000) { id taskExecutions { id } } }').total).toBe(1000 * (1 + 10));
    expect(cost('{ getWorkflowInstance(id: "x") { taskExecutions { id } } }').total).toBe(11);
    expect(cost('{ getWorkflowInstances(limit: 0) { taskExecutions { id } } }').total).toBe(0);
  });

  it('limits from variables, variable defaults and null (the default limit)', () => {
    const query = 'query ($l: Int = 40, $m: Int) { a: getWorkflowInstances(limit: $l) { id } b: getTaskExecutions(limit: $m) { id } }';
    expect(cost(query).total).toBe(40 + 100);
    expect(cost(query, { l: 5, m: 6 }).total).toBe(11);
    expect(cost(query, { l: null, m: 1000 }).total).toBe(100 + 1000);
  });

  it('a limit the resolver rejects reads nothing', () => {
    expect(cost('query ($l: Int) { getWorkflowInstances(limit: $l) { taskExecutions { id } } }', { l: -1 }).total).toBe(0);
    expect(cost('query ($l: Int) { getWorkflowInstances(limit: $l) { id } }', { l: 1001 }).total).toBe(0);
    expect(cost('query ($l: Int) { getWorkflowInstances(limit: $l) { id } }', { l: 'ten' }).total).toBe(0);
  });

  it('fields merge by response key through fragments, as execution merges them; aliases count apart', () => {
    const merged = cost('{ getWorkflowInstances(limit: 3) { id ...T } ...Q } fragment Q on Query { getWorkflowInstances(limit: 3) { ... on WorkflowInstance { taskExecutions { id } } ...T } } fragment T on WorkflowInstance { taskExecutions { status } }');
    expect(merged.total).toBe(3 * (1 + 10));
    expect(cost('{ a: getWorkflowInstances(limit: 3) { id } b: getWorkflowInstances(limit: 3) { id } }').fields).toEqual([
      { key: 'a', cost: 3 },
      { key: 'b', cost: 3 },
    ]);
  });

  it('the rows an offset skips count 1 per 10 (rounded up), on both list queries, from literals, variables and defaults', () => {
    expect(cost('{ getWorkflowInstances(limit: 20, offset: 5000) { id } }').total).toBe(20 + 500);
    expect(cost('{ getTaskExecutions(limit: 20, offset: 1) { id } }').total).toBe(21);
    expect(cost('{ getWorkflowInstances(offset: 15) { id taskExecutions { id } } }').total).toBe(100 * 11 + 2);
    const query = 'query ($o: Int = 100) { getWorkflowInstances(limit: 1, offset: $o) { id } }';
    expect(cost(query).total).toBe(1 + 10);
    expect(cost(query, { o: 2_000_000_000 }).total).toBe(1 + 200_000_000);
    expect(cost(query, { o: null }).total).toBe(1);
    expect(cost(query, { o: 0 }).total).toBe(1);
    // what the resolver refuses or never reads costs nothing
    expect(cost(query, { o: -5 }).total).toBe(1);
    expect(cost('{ getWorkflowInstances(limit: 0, offset: 1000000) { id } }').total).toBe(0);
  });

  it('prices the selected operation of a document', () => {
    const document = 'query Small { getWorkflowInstances(limit: 1) { id } } query Big { getWorkflowInstances(limit: 900) { id } }';
    expect(cost(document, undefined, 'Small').total).toBe(1);
    expect(cost(document, undefined, 'Big').total).toBe(900);
  });
});

const manyAliases = (n: number, tasks: boolean): string =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: getWorkflowInstances(limit: 1000) { id${tasks ? ' taskExecutions { id status }' : ''} }`).join(' ')} }`;

describe('GRAPHQL_MAX_COST over HTTP', () => {
  it('30 aliases × limit 1000 with tasks are refused with BAD_USER_INPUT saying cost, budget and remedy; the reader is never called', async () => {
    const { app, reader } = testApp();
    const { status, body } = await postGraphQL(app, manyAliases(30, true));
    expect(status).toBe(200);
    expect(body).toEqual({
      errors: [
        {
          message:
            'Query cost 330000 exceeds the budget of 20000 rows (GRAPHQL_MAX_COST). Each list counts its limit (default 100) and 1 per 10 rows its offset skips, each taskExecutions list 10 per instance of the list it is in, a single lookup 1, ' +
            'a count 100 (per status in workflowInstanceStatusCounts). ' +
            'Largest: a0 (11000), a1 (11000), a2 (11000). Lower the limits, request fewer lists or aliases at once (or split the query), select taskExecutions for fewer instances, or page deep with after: <cursor> instead of offset.',
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
    expect(reader.calls).toEqual([]);
  });

  it('the conformance suite\'s largest requests fit the default budget', async () => {
    const { app } = testApp();
    const placeholders = await postGraphQL(
      app,
      `{ all: getWorkflowInstances(limit: 1000) { id }
         byId: getWorkflowInstances(filter: {id: {startsWith: "conformance-placeholder"}}) { id }
         completed: getWorkflowInstances(limit: 1000, filter: {status: {eq: COMPLETED}}) { id taskExecutions { id } }
         nameless: getWorkflowInstances(filter: {name: {isNull: true}}) { id } }`,
    );
    expect(placeholders.body.errors).toBeUndefined();
    expect(cost('{ getWorkflowInstances(limit: 1000) { id taskExecutions { id } } }').total).toBe(11_000);
  });

  it('exactly the budget runs; one row more is refused; the budget and the task estimate are configurable', async () => {
    const { app, reader } = testApp({ env: { GRAPHQL_MAX_COST: '1100', GRAPHQL_COST_TASKS_PER_INSTANCE: '10' } });
    expect((await postGraphQL(app, '{ getWorkflowInstances(limit: 100) { taskExecutions { id } } }')).body.errors).toBeUndefined();
    expect(reader.callsOf('listInstances')).toHaveLength(1);
    const over = await postGraphQL(app, '{ getWorkflowInstances(limit: 100) { taskExecutions { id } } getWorkflowInstance(id: "inst-a") { id } }');
    expect(codes(over.body)).toEqual(['BAD_USER_INPUT']);
    expect(over.body.errors?.[0]?.message).toMatch(/^Query cost 1101 exceeds the budget of 1100 rows/);
    expect(reader.callsOf('listInstances')).toHaveLength(1);
    expect(reader.callsOf('getInstance')).toHaveLength(0);
  });

  it('a deep offset is refused before any read, however it is sent; exactly the budget runs', async () => {
    const { app, reader } = testApp();
    // 20 rows + 199,800 / 10 skipped = 20,000: the default budget
    expect((await postGraphQL(app, '{ getWorkflowInstances(limit: 20, offset: 199800) { id } }')).body.errors).toBeUndefined();
    expect(reader.callsOf('listInstances')).toHaveLength(1);
    const query = 'query ($o: Int) { getTaskExecutions(limit: 20, offset: $o) { id } }';
    // the same document several times within the budget first: later runs may take the compiled (hot) path
    for (let i = 0; i < 3; i += 1) expect((await postGraphQL(app, query, { o: 10 })).body.errors).toBeUndefined();
    expect(reader.callsOf('listTasks')).toHaveLength(3);
    for (const o of [199_810, 2_000_000_000]) {
      const { body } = await postGraphQL(app, query, { o });
      expect(codes(body)).toEqual(['BAD_USER_INPUT']);
      expect(body.errors?.[0]?.message).toMatch(new RegExp(`^Query cost ${20 + Math.ceil(o / 10)} exceeds the budget of 20000 rows .*1 per 10 rows its offset skips.*after: <cursor> instead of offset\\.$`));
    }
    expect(reader.callsOf('listTasks')).toHaveLength(3);
  });

  it('property: a request runs iff its rows (Σ limit × (1 + 10 per task list) + offset / 10) fit the budget; a refused one reads nothing', async () => {
    const { app, reader } = testApp();
    const alias = fc.record({
      limit: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 1000 })),
      offset: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 300_000 })),
      tasks: fc.boolean(),
      viaVariable: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(alias, { minLength: 1, maxLength: 30 }), async (aliases) => {
        reader.calls.length = 0;
        const variables: Record<string, unknown> = {};
        const fields = aliases.map((a, i) => {
          const args: string[] = [];
          if (a.viaVariable) {
            variables[`l${i}`] = a.limit;
            variables[`o${i}`] = a.offset;
            args.push(`limit: $l${i}`, `offset: $o${i}`);
          } else {
            if (a.limit !== null) args.push(`limit: ${a.limit}`);
            if (a.offset !== null) args.push(`offset: ${a.offset}`);
          }
          return `a${i}: getWorkflowInstances${args.length > 0 ? `(${args.join(', ')})` : ''} { id${a.tasks ? ' taskExecutions { id }' : ''} }`;
        });
        const declarations = Object.keys(variables).map((name) => `$${name}: Int`);
        const query = `query ${declarations.length > 0 ? `(${declarations.join(', ')})` : ''} { ${fields.join(' ')} }`;
        const expected = aliases.reduce((sum, a) => sum + (a.limit === 0 ? 0 : (a.limit ?? 100) * (a.tasks ? 11 : 1) + Math.ceil((a.offset ?? 0) / 10)), 0);
        const { body } = await postGraphQL(app, query, variables);
        if (expected > 20_000) {
          expect(codes(body)).toEqual(['BAD_USER_INPUT']);
          expect(body.errors?.[0]?.message).toContain(`Query cost ${expected} exceeds the budget of 20000 rows`);
          expect(reader.calls).toEqual([]);
        } else {
          expect(body.errors).toBeUndefined();
          expect(reader.callsOf('listInstances')).toHaveLength(aliases.filter((a) => a.limit !== 0).length);
        }
      }),
      { numRuns: 150 },
    );
  });
});
