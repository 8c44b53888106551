// The query cost of a filter's work: each unit priced as the backend's table says (filter-work.ts), however the
// filter is sent, and before anything reads.
import fc from 'fast-check';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { WorkPrices } from '../src/filter-work.js';
import { buildSchema } from '../src/graphql-server.js';
import { operationCost } from '../src/query-cost.js';
import { loadSchemaSdl } from '../src/schema-sdl.js';
import { codes, postGraphQL, testApp, testConfig } from '@workflow-index/testkit';
import { RecordingReader } from '@workflow-index/testkit';

// Distinct powers of two, so every sum says which units it counted.
const PRICES: WorkPrices = { statement: 1000, condition: 1, inValue: 2, pattern: 4, jsonLookup: 8, jsonTest: 16, jsonInValue: 32, relation: 64 };
const config = testConfig();
const schema = buildSchema(loadSchemaSdl(), config);
const settings = { ...config.graphql, prices: PRICES };
const cost = (query: string, variables?: Record<string, unknown>) => operationCost(schema, parse(query), undefined, variables, settings);
/** The cost of `getWorkflowInstances(limit: 5)` under `filter`, sent as a variable. */
const instancesUnder = (filter: unknown) => cost('query ($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f, limit: 5) { id } }', { f: filter }).total;
const ROWS_AND_STATEMENT = 5 + PRICES.statement;

describe('filterWork', () => {
  it('prices each unit of a run filter once', () => {
    expect(instancesUnder(null)).toBe(ROWS_AND_STATEMENT);
    expect(instancesUnder({ status: { eq: 'FAULTED' }, startDate: { gte: '2026-01-01T00:00:00Z', lt: '2026-02-01T00:00:00Z' } })).toBe(ROWS_AND_STATEMENT + 3);
    expect(instancesUnder({ name: { in: ['a', 'b', 'c'] } })).toBe(ROWS_AND_STATEMENT + 1 + 3 * 2);
    expect(instancesUnder({ name: { like: 'a*', contains: 'b' }, namespace: { startsWith: 'c', endsWith: 'd' } })).toBe(ROWS_AND_STATEMENT + 4 * 4);
    expect(instancesUnder({ error: { title: { contains: 'x' }, status: { in: [500, 503] } } })).toBe(ROWS_AND_STATEMENT + 4 + 1 + 2 * 2);
    expect(instancesUnder({ input: { eq: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }] } })).toBe(ROWS_AND_STATEMENT + 2 * 8);
    expect(instancesUnder({ input: { in: [{ key: 'a', values: ['1', '2', '3'] }] }, output: { gt: [{ key: 'n', value: '5' }], exists: [{ key: 'm', value: true }] } })).toBe(ROWS_AND_STATEMENT + 8 + 3 * 32 + 2 * 16);
    expect(instancesUnder({ taskExecutions: { taskName: { eq: 'charge' }, status: { in: ['FAULTED'] } } })).toBe(ROWS_AND_STATEMENT + 64 + 1 + 1 + 2);
    expect(instancesUnder({ duration: { gt: 1000 }, lastUpdate: { isNull: false } })).toBe(ROWS_AND_STATEMENT + 2);
  });

  it('sums through and, or and not (each not one condition); shorthand is one condition', () => {
    expect(instancesUnder({ or: [{ status: 'FAULTED' }, { and: [{ name: 'a' }, { not: { namespace: 'b' } }] }] })).toBe(ROWS_AND_STATEMENT + 1 + 1 + 1 + 1);
    expect(cost('{ getWorkflowInstances(limit: 5, filter: {status: FAULTED, name: {in: ["a", "b"]}}) { id } }').total).toBe(ROWS_AND_STATEMENT + 1 + 1 + 2 * 2);
  });

  it('prices a literal, a variable, variables inside a literal and a default alike', () => {
    const filter = { input: { in: [{ key: 'customer.id', values: ['c1', 'c2'] }] } };
    const expected = ROWS_AND_STATEMENT + 8 + 2 * 32;
    expect(instancesUnder(filter)).toBe(expected);
    expect(cost('{ getWorkflowInstances(limit: 5, filter: {input: {in: [{key: "customer.id", values: ["c1", "c2"]}]}}) { id } }').total).toBe(expected);
    expect(cost('query ($v: [String!]) { getWorkflowInstances(limit: 5, filter: {input: {in: [{key: "customer.id", values: $v}]}}) { id } }', { v: ['c1', 'c2'] }).total).toBe(expected);
    expect(cost('query ($f: WorkflowInstanceFilterInput = {input: {in: [{key: "customer.id", values: ["c1", "c2"]}]}}) { getWorkflowInstances(limit: 5, filter: $f) { id } }').total).toBe(expected);
  });

  it('task filters: the run fields are conditions of their own, the JSON fields are inputArgs and outputArgs', () => {
    const tasks = (filter: unknown) => cost('query ($f: TaskExecutionFilterInput) { getTaskExecutions(filter: $f, limit: 5) { id } }', { f: filter }).total;
    expect(tasks({ workflowName: { eq: 'order' }, inputArgs: { contains: [{ key: 'a', value: 'b' }] }, taskName: { in: ['x', 'y'] } })).toBe(ROWS_AND_STATEMENT + 1 + 16 + 1 + 2 * 2);
  });

  it('every alias pays its statement and its own filter; counts per status pay the filter once per status', () => {
    const two = cost('{ a: getWorkflowInstances(limit: 5, filter: {name: {like: "x*"}}) { id } b: countWorkflowInstances(filter: {name: {like: "x*"}}) { value } }');
    expect(two.fields).toEqual([
      { key: 'b', cost: 100 + 1000 + 4, work: 1004 },
      { key: 'a', cost: 5 + 1000 + 4, work: 1004 },
    ]);
    expect(cost('{ workflowInstanceStatusCounts(filter: {name: {like: "x*"}}) { status } }').total).toBe(5 * 100 + 1000 + 5 * 4);
  });

  it('without prices a request costs its rows alone', () => {
    expect(operationCost(schema, parse('{ getWorkflowInstances(limit: 5, filter: {name: {in: ["a"]}}) { id } }'), undefined, {}, config.graphql).total).toBe(5);
  });

  it('property: any JSON as a filter prices without throwing, never below the rows and the statement', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (filter) => {
        expect(instancesUnder(filter)).toBeGreaterThanOrEqual(ROWS_AND_STATEMENT);
      }),
      { numRuns: 500 },
    );
  });

  it('property: a generated filter costs the sum of its units, counted by the generator', () => {
    type Built = { readonly filter: Record<string, unknown>; readonly price: number };
    const leaf: fc.Arbitrary<Built> = fc.oneof(
      fc.constantFrom<Built>({ filter: { status: { eq: 'RUNNING' } }, price: 1 }, { filter: { name: 'x' }, price: 1 }, { filter: { name: { like: '*x*' } }, price: 4 }),
      fc.array(fc.string(), { maxLength: 20 }).map((values) => ({ filter: { id: { in: values } }, price: 1 + values.length * 2 })),
      fc.array(fc.string(), { maxLength: 20 }).map((values) => ({ filter: { input: { in: [{ key: 'k', values }] } }, price: 8 + values.length * 32 })),
      fc.constantFrom('eq', 'ne', 'gt', 'contains').map((op) => ({ filter: { output: { [op]: [{ key: 'k', value: 'v' }] } }, price: op === 'eq' ? 8 : 16 })),
    );
    const node: fc.Memo<Built> = fc.memo((depth) =>
      depth <= 1
        ? leaf
        : fc.oneof(
            leaf,
            fc.array(node(depth - 1), { maxLength: 4 }).map((nodes) => ({ filter: { or: nodes.map((n) => n.filter) }, price: nodes.reduce((sum, n) => sum + n.price, 0) })),
            fc.array(node(depth - 1), { maxLength: 4 }).map((nodes) => ({ filter: { and: nodes.map((n) => n.filter) }, price: nodes.reduce((sum, n) => sum + n.price, 0) })),
            node(depth - 1).map((n) => ({ filter: { not: n.filter }, price: 1 + n.price })),
            node(depth - 1).map((n) => ({ filter: { taskExecutions: { not: { taskName: 'a' } }, and: [n.filter] }, price: 64 + 1 + 1 + n.price })),
          ),
    );
    fc.assert(
      fc.property(node(5), (built) => {
        expect(instancesUnder(built.filter)).toBe(ROWS_AND_STATEMENT + built.price);
      }),
      { numRuns: 300 },
    );
  });
});

describe('filter work over HTTP', () => {
  it('a JSON in of 2,500 values in 30 aliases is refused before any read, naming its work; in one alias it runs', async () => {
    const reader = new RecordingReader({ workPrices: { ...PRICES, statement: 25, jsonInValue: 1.1, jsonLookup: 27 } });
    const { app } = testApp({ reader });
    const values = Array.from({ length: 2500 }, (_, i) => `nobody-${i}`);
    const filter = { input: { in: [{ key: 'customer.name', values }] } };
    const aliases = (n: number) => `query ($f: WorkflowInstanceFilterInput) { ${Array.from({ length: n }, (_, i) => `a${i}: getWorkflowInstances(filter: $f, limit: 5) { id }`).join(' ')} }`;
    const refused = await postGraphQL(app, aliases(30), { f: filter });
    expect(codes(refused.body)).toEqual(['BAD_USER_INPUT']);
    const perAlias = 5 + Math.ceil(25 + 27 + 2500 * 1.1);
    expect(refused.body.errors?.[0]?.message).toContain(`Query cost ${30 * perAlias} exceeds the budget of 20000 rows`);
    expect(refused.body.errors?.[0]?.message).toContain(`a0 (${perAlias}, of which ${perAlias - 5} its statement and filter)`);
    expect(refused.body.errors?.[0]?.message).toContain('1.1 per JSON in value');
    expect(reader.calls).toEqual([]);
    const one = await postGraphQL(app, aliases(1), { f: filter });
    expect(one.body.errors).toBeUndefined();
    expect(reader.calls.map((c) => c.method)).toEqual(['listInstances']);
  });
});
