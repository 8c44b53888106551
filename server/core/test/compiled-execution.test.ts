// Compiled execution (graphql-jit, server/core/src/compiled-execution.ts) and the root fields' order
// (root-field-order.ts): which operations compile, that compiled answers are graphql-js's bytes, that answers with
// errors are graphql-js's, and that the answer's top-level fields follow the selection set whichever read ends first.
// (The conformance suites, against real PostgreSQL and OpenSearch, send every request twice and compare the bytes.)
import { describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import { compiledExecutionStats, HOT_AFTER, MAX_COMPILED_FIELDS, MAX_COMPILED_OPERATIONS, MAX_SHAPES } from '../src/compiled-execution.js';
import { testApp } from '@workflow-index/testkit';
import { RecordingReader } from '@workflow-index/testkit';

async function answer(app: App, query: string, variables?: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const response = await app.fetch(new Request('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  }));
  return { status: response.status, text: await response.text() };
}

/** What the compiled path did while `run` ran. */
async function counted(run: () => Promise<void>): Promise<{ compiled: number; executions: number; fallbacks: number }> {
  const before = { ...compiledExecutionStats };
  await run();
  expect(compiledExecutionStats.dropped).toBe(before.dropped);
  return {
    compiled: compiledExecutionStats.compiled - before.compiled,
    executions: compiledExecutionStats.executions - before.executions,
    fallbacks: compiledExecutionStats.fallbacks - before.fallbacks,
  };
}

const PAGE = `query Page($status: WorkflowInstanceStatus!, $name: String!) {
  getWorkflowInstances(limit: 20, filter: {status: {eq: $status}, name: {eq: $name}}, orderBy: {startDate: DESC}) { id name status startDate endDate } }`;

describe('compiled execution', () => {
  it(`a query with scalar and enum variables runs compiled from its execution number ${HOT_AFTER} on, with the same answer bytes`, async () => {
    const { app } = testApp();
    const answers: string[] = [];
    const figures = await counted(async () => {
      for (let i = 0; i < 4; i += 1) answers.push((await answer(app, PAGE, { status: 'COMPLETED', name: 'order' })).text);
    });
    expect(figures).toEqual({ compiled: 1, executions: 4 - HOT_AFTER + 1, fallbacks: 0 });
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0]!)).toHaveProperty('data.getWorkflowInstances');
  });

  it('a query with a filter variable (a recursive input type) is never compiled', async () => {
    const { app } = testApp();
    const query = 'query F($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f, limit: 5) { id } }';
    const figures = await counted(async () => {
      for (let i = 0; i < 3; i += 1) expect((await answer(app, query, { f: { and: [{ status: 'COMPLETED' }, { or: [{ name: 'a' }] }] } })).status).toBe(200);
    });
    expect(figures).toEqual({ compiled: 0, executions: 0, fallbacks: 0 });
  });

  it(`an operation selecting more than ${MAX_COMPILED_FIELDS} fields (fragments counted where spread) is not compiled`, async () => {
    const { app } = testApp();
    const fields = 'id name namespace version status startDate endDate lastUpdate';
    // 2 + 4 x (1 + 8) = 38 fields through the fragment; the same with one alias (2 + 9 + ...) compiles.
    const big = `query Big($n: Int) { a: getWorkflowInstances(limit: $n) { ...F } b: getWorkflowInstances(limit: $n) { ...F } c: getWorkflowInstances(limit: $n) { ...F } d: getWorkflowInstances(limit: $n) { ...F } }\nfragment F on WorkflowInstance { ${fields} }`;
    const small = `query Small($n: Int) { a: getWorkflowInstances(limit: $n) { ...F } }\nfragment F on WorkflowInstance { ${fields} }`;
    const figures = await counted(async () => {
      for (let i = 0; i < 3; i += 1) await answer(app, big, { n: 1 });
    });
    expect(figures.compiled).toBe(0);
    const smallFigures = await counted(async () => {
      for (let i = 0; i < 3; i += 1) await answer(app, small, { n: 1 });
    });
    expect(smallFigures.compiled).toBe(1);
  });

  it('shapes seen once are not compiled: a client sending a new shape per request compiles nothing', async () => {
    const { app } = testApp();
    const figures = await counted(async () => {
      for (let i = 0; i < 5; i += 1) await answer(app, `{ run${i}: getWorkflowInstances(limit: ${i + 1}) { id } }`);
    });
    expect(figures.compiled).toBe(0);
  });

  it(`at most ${MAX_SHAPES} shapes are remembered: a shape seen once, then pushed out by as many others, counts from zero again`, async () => {
    // Two documents of one shape (another value written in): the second execution of the shape compiles it.
    const one = '{ first: getWorkflowInstances(limit: 1) { id } }';
    const two = '{ first: getWorkflowInstances(limit: 2) { id } }';
    const others = Array.from({ length: MAX_SHAPES }, (_, i) => `{ other${i}: getWorkflowInstances(limit: 1) { id } }`);
    const { app } = testApp();
    const remembered = await counted(async () => {
      await answer(app, one);
      await answer(app, others[0]!);
      await answer(app, two);
    });
    expect(remembered.compiled).toBe(1);
    const { app: fresh } = testApp();
    const forgotten = await counted(async () => {
      await answer(fresh, one);
      for (const query of others) await answer(fresh, query);
      await answer(fresh, two);
    });
    expect(forgotten.compiled).toBe(0);
  }, 60_000);

  it('documents that differ only in the values written into them share one compiled operation, with graphql-js\'s answers and reads', async () => {
    const compiledReader = new RecordingReader();
    const referenceReader = new RecordingReader();
    const compiledApp = testApp({ reader: compiledReader }).app;
    const reference = testApp({ reader: referenceReader, env: { GRAPHQL_COMPILED_EXECUTION: 'false' } }).app;
    const page = (limit: number, status: string, name: string) =>
      `{ getWorkflowInstances(limit: ${limit}, filter: {status: {in: [${status}]}, name: {like: ${JSON.stringify(name)}}}, orderBy: {name: DESC}) { id status } }`;
    const documents = [page(1, 'COMPLETED', 'a*'), page(2, 'FAULTED', 'b?'), page(3, 'RUNNING', 'c "quoted" \\ and é'), page(20, 'COMPLETED', '')];
    const figures = await counted(async () => {
      for (const query of [...documents, ...documents]) expect(await answer(compiledApp, query)).toEqual(await answer(reference, query));
    });
    expect(figures).toEqual({ compiled: 1, executions: documents.length * 2 - HOT_AFTER + 1, fallbacks: 0 });
    expect(compiledReader.calls).toEqual(referenceReader.calls);
    // A bad value written in is the same error as graphql-js words it.
    const bad = page(-1, 'COMPLETED', 'x');
    expect(await answer(compiledApp, bad)).toEqual(await answer(reference, bad));
  });

  it('an answer with errors is graphql-js\'s: the same bytes as the first execution, field errors with locations', async () => {
    const { app } = testApp();
    const query = 'query Bad($limit: Int) { getWorkflowInstances(limit: $limit) { id } }';
    const first = await answer(app, query, { limit: -1 });
    const figures = await counted(async () => {
      const second = await answer(app, query, { limit: -1 });
      expect(second).toEqual(first);
    });
    expect(figures).toEqual({ compiled: 1, executions: 1, fallbacks: 1 });
    const body = JSON.parse(first.text) as { errors: { locations?: unknown; extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0]?.locations).toBeDefined();
    // Variables that do not coerce: graphql-js's words, not graphql-jit's.
    const coercion = 'query E($status: WorkflowInstanceStatus!) { getWorkflowInstances(limit: 1, filter: {status: {eq: $status}}) { id } }';
    await answer(app, coercion, { status: 'COMPLETED' });
    const compiledAnswer = await answer(app, coercion, { status: 'NOPE' });
    const reference = await answer(testApp({ env: { GRAPHQL_COMPILED_EXECUTION: 'false' } }).app, coercion, { status: 'NOPE' });
    expect(compiledAnswer).toEqual(reference);
  });

  it('@skip/@include on fields, fragments and inline fragments, __typename, nested lists: the compiled answers are graphql-js\'s', async () => {
    const compiledApp = testApp().app;
    const reference = testApp({ env: { GRAPHQL_COMPILED_EXECUTION: 'false' } }).app;
    const query = `query D($a: Boolean!, $b: Boolean!, $id: ID!) {
      getWorkflowInstance(id: $id) { __typename id name @include(if: $a) status @skip(if: $b) ...Dates @include(if: $b)
        ... on WorkflowInstance @skip(if: $a) { namespace version }
        taskExecutions { id taskName status @include(if: $a) ... on TaskExecution { startDate } } } }
      fragment Dates on WorkflowInstance { startDate endDate lastUpdate }`;
    const figures = await counted(async () => {
      for (let round = 0; round < 2; round += 1) {
        for (const a of [true, false]) {
          for (const b of [true, false]) {
            for (const id of ['inst-a', 'inst-b', 'nope']) {
              const variables = { a, b, id };
              expect(await answer(compiledApp, query, variables)).toEqual(await answer(reference, query, variables));
            }
          }
        }
      }
    });
    expect(figures).toEqual({ compiled: 1, executions: 24 - HOT_AFTER + 1, fallbacks: 0 });
  });

  it(`at most ${MAX_COMPILED_OPERATIONS} operations stay compiled: the least recently executed is dropped and runs on graphql-js from then on`, async () => {
    const { app } = testApp();
    const documents = Array.from({ length: MAX_COMPILED_OPERATIONS + 3 }, (_, i) => `query Q${i}($n: Int) { getWorkflowInstances(limit: $n) { id } }`);
    const before = { ...compiledExecutionStats };
    for (const query of documents) {
      await answer(app, query, { n: 1 });
      await answer(app, query, { n: 1 });
    }
    expect(compiledExecutionStats.compiled - before.compiled).toBe(documents.length);
    expect(compiledExecutionStats.dropped - before.dropped).toBe(3);
    // The first three were dropped: they run on graphql-js; the newest still runs compiled.
    const executions = compiledExecutionStats.executions;
    const first = await answer(app, documents[0]!, { n: 1 });
    expect(compiledExecutionStats.executions).toBe(executions);
    await answer(app, documents.at(-1)!, { n: 1 });
    expect(compiledExecutionStats.executions).toBe(executions + 1);
    expect(JSON.parse(first.text)).toHaveProperty('data.getWorkflowInstances');
  });

  it('GRAPHQL_COMPILED_EXECUTION=false compiles nothing', async () => {
    const { app } = testApp({ env: { GRAPHQL_COMPILED_EXECUTION: 'false' } });
    const figures = await counted(async () => {
      for (let i = 0; i < 3; i += 1) await answer(app, PAGE, { status: 'COMPLETED', name: 'order' });
    });
    expect(figures).toEqual({ compiled: 0, executions: 0, fallbacks: 0 });
  });
});

describe('the answer\'s top-level fields follow the selection set', () => {
  for (const compiled of [false, true]) {
    it(`whichever root field's read ends first (${compiled ? 'compiled' : 'graphql-js'})`, async () => {
      // The first root field's read ends last.
      let reads = 0;
      const reader = new RecordingReader({
        onRead: async () => {
          reads += 1;
          if (reads % 2 === 1) await new Promise((resolve) => setTimeout(resolve, 30));
        },
      });
      const { app } = testApp({ reader, env: { GRAPHQL_COMPILED_EXECUTION: String(compiled) } });
      const query = 'query Two($a: ID!, $b: ID!) { first: getWorkflowInstance(id: $a) { id } second: getWorkflowInstance(id: $b) { id } ...More }\nfragment More on Query { third: getWorkflowInstances(limit: 1) { id } }';
      for (let i = 0; i < HOT_AFTER + 1; i += 1) {
        reads = 0;
        const { text } = await answer(app, query, { a: 'inst-a', b: 'inst-b' });
        expect(Object.keys((JSON.parse(text) as { data: object }).data)).toEqual(['first', 'second', 'third']);
      }
    });
  }
});
