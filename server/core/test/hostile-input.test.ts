// Input that is the client's fault answers BAD_USER_INPUT, never INTERNAL_SERVER_ERROR, and never reaches
// the Reader: NUL characters, lone surrogates, numbers no backend can compare, filters nested without end,
// mutations and subscriptions. The listed cases, then fast-check over every filter input as variables.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReaderCall } from '@workflow-index/testkit';
import { RecordingReader } from '@workflow-index/testkit';
import { codes, postGraphQL, testApp } from '@workflow-index/testkit';
import type { TestApp } from '@workflow-index/testkit';

const INSTANCES = 'query ($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }';
const TASKS = 'query ($f: TaskExecutionFilterInput) { getTaskExecutions(filter: $f) { id } }';

async function rawPost(t: TestApp, body: string): Promise<{ status: number; body: { errors?: { message: string; extensions?: Record<string, unknown> }[] } }> {
  const response = await t.app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
  return { status: response.status, body: (await response.json()) as { errors?: { message: string; extensions?: Record<string, unknown> }[] } };
}

/** One error: its code and message. */
async function refusal(t: TestApp, query: string, variables?: Record<string, unknown>): Promise<[string, string]> {
  const { status, body } = await postGraphQL(t.app, query, variables);
  // 400 when the request fails as a whole (variables), as graphql-response+json answers it.
  expect([200, 400]).toContain(status);
  expect(body.errors).toHaveLength(1);
  return [String(body.errors?.[0]?.extensions?.['code']), String(body.errors?.[0]?.message)];
}

describe('the listed hostile inputs', () => {
  it('a NUL character in a filter value, an `in` item, a like pattern, a JSON key or value, an id', async () => {
    const t = testApp();
    const nul = 'a\u0000b';
    expect(await refusal(t, INSTANCES, { f: { name: { eq: nul } } })).toEqual(['BAD_USER_INPUT', 'filter.name.eq must not contain a NUL character (U+0000); found one at index 1']);
    expect(await refusal(t, INSTANCES, { f: { or: [{ id: 'ok' }, { namespace: { in: ['x', nul] } }] } })).toEqual([
      'BAD_USER_INPUT',
      'filter.or[1].namespace.in[1] must not contain a NUL character (U+0000); found one at index 1',
    ]);
    expect(await refusal(t, TASKS, { f: { error: { detail: { like: nul } } } })).toEqual(['BAD_USER_INPUT', 'filter.error.detail.like must not contain a NUL character (U+0000); found one at index 1']);
    expect(await refusal(t, INSTANCES, { f: { input: { eq: [{ key: `order.${nul}`, value: '1' }] } } })).toEqual([
      'BAD_USER_INPUT',
      'filter.input.eq[0].key must not contain a NUL character (U+0000); found one at index 7',
    ]);
    expect(await refusal(t, TASKS, { f: { not: { outputArgs: { eq: [{ key: 'a', value: nul }] } } } })).toEqual([
      'BAD_USER_INPUT',
      'filter.not.outputArgs.eq[0].value must not contain a NUL character (U+0000); found one at index 1',
    ]);
    expect(await refusal(t, 'query ($id: ID!) { getTaskExecutionsByWorkflowInstance(workflowInstanceId: $id) { id } }', { id: nul })).toEqual([
      'BAD_USER_INPUT',
      'workflowInstanceId must not contain a NUL character (U+0000); found one at index 1',
    ]);
    expect(await refusal(t, '{ getWorkflowInstance(id: "\\u0000") { id } }')).toEqual(['BAD_USER_INPUT', 'id must not contain a NUL character (U+0000); found one at index 0']);
    expect(t.reader.calls).toEqual([]);
  });

  it('lone surrogates (high or low half alone); a proper pair passes', async () => {
    const t = testApp();
    expect(await refusal(t, INSTANCES, { f: { name: 'x\ud800' } })).toEqual(['BAD_USER_INPUT', 'filter.name.eq is not valid Unicode text: a lone UTF-16 surrogate at index 1 (\\uD800 without its pair)']);
    expect(await refusal(t, TASKS, { f: { taskName: { startsWith: '\udc00y' } } })).toEqual([
      'BAD_USER_INPUT',
      'filter.taskName.startsWith is not valid Unicode text: a lone UTF-16 surrogate at index 0 (\\uDC00 without its pair)',
    ]);
    expect(await refusal(t, 'query ($id: ID!) { getTaskExecution(id: $id) { id } }', { id: '\udbff' })).toEqual([
      'BAD_USER_INPUT',
      'id is not valid Unicode text: a lone UTF-16 surrogate at index 0 (\\uDBFF without its pair)',
    ]);
    // In a literal, the GraphQL parser refuses the escape itself.
    expect(await refusal(t, '{ getTaskExecution(id: "\\uDBFF") { id } }')).toEqual(['GRAPHQL_PARSE_FAILED', 'Syntax Error: Invalid Unicode escape sequence: "\\uDBFF".']);
    expect(t.reader.calls).toEqual([]);
    expect((await postGraphQL(t.app, INSTANCES, { f: { name: 'order \ud83d\ude00' } })).body.errors).toBeUndefined();
    expect(t.reader.callsOf('listInstances')[0]?.query.filter).toEqual({ kind: 'string', field: 'name', predicate: { op: 'eq', value: 'order \ud83d\ude00' } });
  });

  it('numbers in JSON filters that no backend compares: above the double range, underflowing to 0, too long', async () => {
    const t = testApp();
    const range = 'is a number out of range: JSON filter numbers must be 0 or have a magnitude between 5e-324 and 1.7976931348623157e308, written in at most 1000 characters';
    expect(await refusal(t, INSTANCES, { f: { input: { eq: [{ key: 'amount', value: '1e400' }] } } })).toEqual(['BAD_USER_INPUT', `filter.input.eq[0].value "1e400" ${range}`]);
    expect(await refusal(t, INSTANCES, { f: { output: { eq: [{ key: 'a', value: '-2.5e-400' }] } } })).toEqual(['BAD_USER_INPUT', `filter.output.eq[0].value "-2.5e-400" ${range}`]);
    const long = `0.${'1'.repeat(2000)}`;
    expect(await refusal(t, TASKS, { f: { inputArgs: { eq: [{ key: 'a', value: long }] } } })).toEqual([
      'BAD_USER_INPUT',
      `filter.inputArgs.eq[0].value "0.11111111111111111111111111111111111111"… (2002 characters) ${range}`,
    ]);
    expect(t.reader.calls).toEqual([]);
    // In range, zero written any way, and text that only looks numeric-ish pass.
    for (const value of ['1.7976931348623157e308', '5e-324', '0e-999', '-0.000', '1e400x', '1000']) {
      expect((await postGraphQL(t.app, INSTANCES, { f: { input: { eq: [{ key: 'a', value }] } } })).body.errors, value).toBeUndefined();
    }
  });

  it('`and` nested 1,000 deep and `not` 10,000 deep in variables (was a stack overflow); literals too', async () => {
    const t = testApp();
    const message =
      'variables nest more than 72 levels deep; filters may nest and/or/not at most 32 levels (GRAPHQL_MAX_FILTER_DEPTH): flatten the filter, e.g. and: [a, b, c] instead of and: [a, {and: [b, c]}]';
    // Built as text: JSON.stringify itself recurses.
    const deepAnd = `${'{"and":['.repeat(1000)}{"name":"x"}${']}'.repeat(1000)}`;
    const deepNot = `${'{"not":'.repeat(10_000)}{"name":"x"}${'}'.repeat(10_000)}`;
    for (const filter of [deepAnd, deepNot]) {
      const { status, body } = await rawPost(t, `{"query":${JSON.stringify(INSTANCES)},"variables":{"f":${filter}}}`);
      expect(status).toBe(200);
      expect(body).toEqual({ errors: [{ message, extensions: { code: 'BAD_USER_INPUT' } }] });
    }
    const literal = `{ getWorkflowInstances(filter: ${'{not: '.repeat(900)}{name: "x"}${'}'.repeat(900)}) { id } }`;
    const [code, text] = await refusal(t, literal);
    expect(code).toBe('BAD_USER_INPUT');
    expect(text).toBe(`filter${'.not'.repeat(33)} is nested in and/or/not more than 32 levels deep (GRAPHQL_MAX_FILTER_DEPTH); flatten the filter, e.g. and: [a, b, c] instead of and: [a, {and: [b, c]}]`);
    expect(t.reader.calls).toEqual([]);
    expect(t.log.entries.filter((e) => e['level'] === 'error')).toEqual([]);
  });

  it('GRAPHQL_MAX_FILTER_DEPTH: exactly the limit runs, one level more is refused', async () => {
    const t = testApp({ env: { GRAPHQL_MAX_FILTER_DEPTH: '3' } });
    const nest = (n: number): Record<string, unknown> => (n === 0 ? { name: 'x' } : { and: [{ id: 'y' }, nest(n - 1)] });
    expect((await postGraphQL(t.app, INSTANCES, { f: nest(3) })).body.errors).toBeUndefined();
    expect(await refusal(t, INSTANCES, { f: nest(4) })).toEqual([
      'BAD_USER_INPUT',
      'filter.and[1].and[1].and[1].and[0] is nested in and/or/not more than 3 levels deep (GRAPHQL_MAX_FILTER_DEPTH); flatten the filter, e.g. and: [a, b, c] instead of and: [a, {and: [b, c]}]',
    ]);
    expect(t.reader.callsOf('listInstances')).toHaveLength(1);
  });

  // Filters in variables escape GRAPHQL_MAX_TOKENS: without a bound on their width, PostgreSQL's 65,535 bind parameters
  // (08P01, once served as SERVICE_UNAVAILABLE) and OpenSearch's 1024 clauses and 65,536 terms were internal errors.
  const conditionsMessage = (n: number, max = 100, maxIn = 10_000) =>
    `filter has ${n} conditions; at most ${max} are allowed (GRAPHQL_MAX_FILTER_CONDITIONS: each operator of a field, each JSON {key, value} pair and each not counts one): ` +
    `use in: [...] for many values of one field (at most ${maxIn} values, GRAPHQL_MAX_FILTER_IN_VALUES), or split the query`;
  const COUNT = 'query ($f: WorkflowInstanceFilterInput) { countWorkflowInstances(filter: $f) { value } }';

  it('GRAPHQL_MAX_FILTER_CONDITIONS (default 100): exactly the limit runs, one more is refused before any read', async () => {
    const t = testApp();
    const ors = (n: number) => ({ or: Array.from({ length: n }, (_, i) => ({ id: `x${i}` })) });
    expect((await postGraphQL(t.app, INSTANCES, { f: ors(100) })).body.errors).toBeUndefined();
    expect(t.reader.callsOf('listInstances')).toHaveLength(1);
    expect(await refusal(t, INSTANCES, { f: ors(101) })).toEqual(['BAD_USER_INPUT', conditionsMessage(101)]);
    // Every operator of a field counts, JSON pairs count, each not counts, nested task filters count.
    const mixed = {
      id: { ne: 'a', like: 'b*', in: ['c'] }, // 3
      input: { eq: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }, { key: 'c', value: '3' }] }, // 3
      not: { not: { name: 'x' } }, // 3
      error: { title: { eq: 't', ne: 'u' }, status: { in: [1] } }, // 3
      and: Array.from({ length: 88 }, (_, i) => ({ error: { status: { ne: i } } })), // 88
    };
    expect((await postGraphQL(t.app, INSTANCES, { f: mixed })).body.errors).toBeUndefined();
    expect(await refusal(t, INSTANCES, { f: { ...mixed, name: { ne: 'y' } } })).toEqual(['BAD_USER_INPUT', conditionsMessage(101)]);
    // A nested task filter's conditions count too (refused before the backend is asked whether it supports it).
    expect(await refusal(t, INSTANCES, { f: { ...mixed, taskExecutions: { taskName: 't' } } })).toEqual(['BAD_USER_INPUT', conditionsMessage(101)]);
    // Empty filter objects place no condition; the reviewer's shapes are all refused with the limit.
    expect((await postGraphQL(t.app, INSTANCES, { f: { or: [...Array.from({ length: 5000 }, () => ({})), { id: 'a' }] } })).body.errors).toBeUndefined();
    expect(await refusal(t, INSTANCES, { f: ors(66_000) })).toEqual(['BAD_USER_INPUT', conditionsMessage(66_000)]);
    expect(await refusal(t, TASKS, { f: { or: Array.from({ length: 1100 }, (_, i) => ({ taskName: `t${i}` })) } })).toEqual(['BAD_USER_INPUT', conditionsMessage(1100)]);
    expect(await refusal(t, COUNT, { f: { or: Array.from({ length: 1100 }, (_, i) => ({ input: { eq: [{ key: 'n', value: String(i) }] } })) } })).toEqual([
      'BAD_USER_INPUT',
      conditionsMessage(1100),
    ]);
    expect(t.reader.callsOf('listInstances')).toHaveLength(3);
    expect(t.reader.callsOf('listTasks')).toHaveLength(0);
    expect(t.log.entries.filter((e) => e['level'] === 'error')).toEqual([]);
    const raised = testApp({ env: { GRAPHQL_MAX_FILTER_CONDITIONS: '200' } });
    expect((await postGraphQL(raised.app, INSTANCES, { f: ors(200) })).body.errors).toBeUndefined();
    expect(await refusal(raised, INSTANCES, { f: ors(201) })).toEqual(['BAD_USER_INPUT', conditionsMessage(201, 200)]);
  });

  it('GRAPHQL_MAX_FILTER_IN_VALUES (default 10,000): every in list, JSON in values included, is bounded', async () => {
    const t = testApp();
    const values = (n: number) => Array.from({ length: n }, (_, i) => `x${i}`);
    expect((await postGraphQL(t.app, INSTANCES, { f: { id: { in: values(10_000) } } })).body.errors).toBeUndefined();
    const cases: [string, Record<string, unknown>, string][] = [
      [INSTANCES, { id: { in: values(70_001) } }, 'filter.id.in has 70001 values'],
      [INSTANCES, { or: [{ name: 'a' }, { namespace: { in: values(10_001) } }] }, 'filter.or[1].namespace.in has 10001 values'],
      [INSTANCES, { status: { in: Array.from({ length: 10_001 }, () => 'RUNNING') } }, 'filter.status.in has 10001 values'],
      [INSTANCES, { error: { status: { in: Array.from({ length: 10_001 }, (_, i) => i) } } }, 'filter.error.status.in has 10001 values'],
      [INSTANCES, { output: { in: [{ key: 'a', values: values(10_001) }] } }, 'filter.output.in[0].values has 10001 values'],
      [INSTANCES, { taskExecutions: { taskPosition: { in: values(10_001) } } }, 'filter.taskExecutions.taskPosition.in has 10001 values'],
      [TASKS, { or: [{ id: 'a' }, { not: { workflowInstanceId: { in: values(10_001) } } }] }, 'filter.or[1].not.workflowInstanceId.in has 10001 values'],
      [TASKS, { workflowName: { in: values(10_001) } }, 'filter.workflowName.in has 10001 values'],
      [TASKS, { status: { in: Array.from({ length: 10_001 }, () => 'FAILED') } }, 'filter.status.in has 10001 values'],
    ];
    for (const [query, f, start] of cases) {
      expect(await refusal(t, query, { f })).toEqual([
        'BAD_USER_INPUT',
        `${start}; an in list may hold at most 10000 (GRAPHQL_MAX_FILTER_IN_VALUES): split the query, or filter on something the values share`,
      ]);
    }
    expect(t.reader.callsOf('listInstances')).toHaveLength(1);
    const lowered = testApp({ env: { GRAPHQL_MAX_FILTER_IN_VALUES: '3' } });
    expect((await postGraphQL(lowered.app, INSTANCES, { f: { id: { in: values(3) } } })).body.errors).toBeUndefined();
    expect((await refusal(lowered, INSTANCES, { f: { id: { in: values(4) } } }))[1]).toMatch(/^filter\.id\.in has 4 values; an in list may hold at most 3 /);
  });

  it('mutation operations: the API is read-only; a subscription is taken only as an event stream', async () => {
    const t = testApp();
    const { status, body } = await postGraphQL(t.app, 'mutation Change { getWorkflowInstances { id } }');
    expect(status).toBe(200);
    expect(body).toEqual({
      errors: [
        {
          message: 'This API is read-only: mutation operations are not supported. Send a query, e.g. query { getWorkflowInstances { id status } }, or a subscription over Server-Sent Events.',
          locations: [{ line: 1, column: 1 }],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
    const plain = await postGraphQL(t.app, 'subscription Live { workflowInstanceChanged { id } }');
    expect(plain.body.errors).toEqual([
      expect.objectContaining({ message: 'Subscriptions are served over Server-Sent Events only: send the subscription with POST /graphql and the header Accept: text/event-stream.', extensions: { code: 'BAD_USER_INPUT' } }),
    ]);
    expect(t.reader.calls).toEqual([]);
    expect(t.log.entries.filter((e) => e['level'] === 'error')).toEqual([]);
  });

  it('error messages quote at most an excerpt of a long client value', async () => {
    const t = testApp();
    const [, text] = await refusal(t, TASKS, { f: { status: 'X'.repeat(100_000) } });
    expect(text).toBe(`filter.status.eq must be one of RUNNING, COMPLETED, FAULTED, CANCELLED, SUSPENDED (FAILED means FAULTED); got "${'X'.repeat(40)}"… (100000 characters)`);
    const [, key] = await refusal(t, INSTANCES, { f: { input: { eq: [{ key: `a..${'b'.repeat(100_000)}`, value: '1' }] } } });
    expect(key).toBe(`filter.input.eq[0].key must be a dot path of non-empty segments, e.g. customer.address.city or items.0.sku; got "a..${'b'.repeat(37)}"… (100003 characters)`);
  });
});

// ---------------------------------------------------------------------------------------------
// Fuzz: every filter input, as variables, with well-formed, malformed and wrongly typed values.
// ---------------------------------------------------------------------------------------------

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 6 }).map((units) => String.fromCharCode(...units)),
  fc.constantFrom(
    '\u0000',
    'a\u0000',
    '\ud800',
    'x\udfff',
    '\ud83d\ude00',
    '',
    '.',
    'a..b',
    '*',
    '?',
    '%_\\',
    'true',
    '1000',
    '1000.0',
    '1e400',
    '-1e-400',
    '0e99999',
    'FAILED',
    'COMPLETED',
    '2026-05-12T09:14:03Z',
    '2026-05-12T09:14:03.1234567+02:00',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.9999999Z',
    '2026-05-12',
    '1778577309',
  ),
);
/** Values of the wrong type where the schema expects something else. */
const wrong = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.double(), fc.constant(2 ** 31), fc.constant(-(2 ** 53)));
const maybeWrong = <T>(proper: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 12, arbitrary: proper }, { weight: 1, arbitrary: wrong });
const partial = (fields: Record<string, fc.Arbitrary<unknown>>) => fc.record(fields, { requiredKeys: [] });

const stringFilter = fc.oneof(
  text,
  partial({ eq: text, ne: text, like: text, in: fc.array(text, { maxLength: 3 }), contains: text, startsWith: text, endsWith: text, isNull: fc.boolean() }),
);
const dateFilter = fc.oneof(
  text,
  partial({ eq: text, ne: text, gt: text, gte: text, lt: text, lte: text, between: fc.record({ from: text, to: text }), isNull: fc.boolean() }),
);
const intFilter = partial({ eq: fc.integer(), ne: fc.integer(), gt: fc.integer(), lte: fc.integer(), in: fc.array(fc.integer(), { maxLength: 3 }) });
const jsonPairs = fc.array(fc.record({ key: text, value: text }), { maxLength: 3 });
// eq, and the other operators (ne … contains with {key, value}, in with {key, values}, exists with a Boolean)
const jsonFilter = partial({
  eq: jsonPairs,
  ne: jsonPairs,
  gt: jsonPairs,
  gte: jsonPairs,
  lt: jsonPairs,
  lte: jsonPairs,
  contains: jsonPairs,
  in: fc.array(fc.record({ key: text, values: fc.array(text, { maxLength: 3 }) }), { maxLength: 2 }),
  exists: fc.array(fc.record({ key: text, value: fc.boolean() }), { maxLength: 2 }),
});
const milliseconds = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(9e12, -9e12, 9.000000000001e12, 1e300, 0.0005, 1.001));
const durationFilter = partial({ gt: milliseconds, gte: milliseconds, lt: milliseconds, lte: milliseconds, isNull: fc.boolean() });
const errorFilter = partial({ type: maybeWrong(stringFilter), title: maybeWrong(stringFilter), detail: maybeWrong(stringFilter), status: maybeWrong(intFilter), instance: maybeWrong(stringFilter) });
const instanceStatus = fc.constantFrom('RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED', 'FAILED', 'nope');
const taskStatus = fc.oneof(fc.constantFrom('RUNNING', 'COMPLETED', 'FAULTED', 'FAILED', 'CANCELLED', 'SUSPENDED'), text);

const instanceLeaves = {
  id: maybeWrong(stringFilter),
  name: maybeWrong(stringFilter),
  namespace: maybeWrong(stringFilter),
  version: maybeWrong(stringFilter),
  status: maybeWrong(fc.oneof(instanceStatus, partial({ eq: instanceStatus, ne: instanceStatus, in: fc.array(instanceStatus, { maxLength: 3 }) }))),
  startTime: maybeWrong(dateFilter),
  endTime: maybeWrong(dateFilter),
  startDate: maybeWrong(dateFilter),
  endDate: maybeWrong(dateFilter),
  lastUpdate: maybeWrong(dateFilter),
  input: maybeWrong(jsonFilter),
  output: maybeWrong(jsonFilter),
  error: maybeWrong(errorFilter),
  duration: maybeWrong(durationFilter),
};
const taskLeaves = {
  id: maybeWrong(stringFilter),
  workflowInstanceId: maybeWrong(stringFilter),
  taskName: maybeWrong(stringFilter),
  taskPosition: maybeWrong(stringFilter),
  status: maybeWrong(fc.oneof(taskStatus, partial({ eq: taskStatus, ne: taskStatus, in: fc.array(taskStatus, { maxLength: 3 }) }))),
  enter: maybeWrong(dateFilter),
  exit: maybeWrong(dateFilter),
  startDate: maybeWrong(dateFilter),
  endDate: maybeWrong(dateFilter),
  inputArgs: maybeWrong(jsonFilter),
  outputArgs: maybeWrong(jsonFilter),
  error: maybeWrong(errorFilter),
  duration: maybeWrong(durationFilter),
  workflowName: maybeWrong(stringFilter),
  workflowNamespace: maybeWrong(stringFilter),
  workflowVersion: maybeWrong(stringFilter),
};
// Runs filtered by their tasks: a task filter (one level; the and/or/not trees of both kinds are fuzzed on their
// own, and a tree of trees would grow the inputs, and the time per run, by orders of magnitude).
const instanceLeavesWithTasks = { ...instanceLeaves, taskExecutions: maybeWrong(partial(taskLeaves)) };

function filterOf(leaves: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const { filter } = fc.letrec<{ filter: unknown }>((tie) => ({
    filter: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      partial(leaves),
      partial({ ...leaves, and: fc.array(tie('filter'), { maxLength: 3 }), or: fc.array(tie('filter'), { maxLength: 3 }), not: tie('filter') }),
    ),
  }));
  // Now and then a chain deep enough to cross GRAPHQL_MAX_FILTER_DEPTH (32) or the variables' depth bound.
  const chain = fc.tuple(filter, fc.integer({ min: 0, max: 120 }), fc.constantFrom('and', 'or', 'not')).map(([inner, depth, kind]) => {
    let out = inner;
    for (let i = 0; i < depth; i++) out = kind === 'not' ? { not: out } : { [kind]: [out] };
    return out;
  });
  return maybeWrong(fc.oneof({ weight: 4, arbitrary: filter }, { weight: 1, arbitrary: chain }));
}

const request = fc.oneof(
  fc.record({
    query: fc.constant('query ($f: WorkflowInstanceFilterInput, $l: Int, $o: Int, $s: WorkflowInstanceOrderByInput) { getWorkflowInstances(filter: $f, limit: $l, offset: $o, orderBy: $s) { id taskExecutions { id } } }'),
    variables: partial({
      f: filterOf(instanceLeavesWithTasks),
      l: maybeWrong(fc.integer({ min: -5, max: 1005 })),
      o: maybeWrong(fc.integer({ min: -5, max: 50 })),
      s: maybeWrong(partial({ name: fc.constantFrom('ASC', 'DESC'), duration: fc.constantFrom('ASC', 'DESC'), startTime: fc.constantFrom('ASC', 'DESC') })),
    }),
  }),
  fc.record({
    query: fc.constant('query ($f: TaskExecutionFilterInput, $l: Int, $s: TaskExecutionOrderByInput) { getTaskExecutions(filter: $f, limit: $l, orderBy: $s) { id durationMs workflowInstance { id } } }'),
    variables: partial({ f: filterOf(taskLeaves), l: maybeWrong(fc.integer({ min: -5, max: 1005 })), s: maybeWrong(partial({ duration: fc.constantFrom('ASC', 'DESC') })) }),
  }),
  fc.record({
    query: fc.constant(
      'query ($f: WorkflowInstanceFilterInput, $t: TaskExecutionFilterInput) { countWorkflowInstances(filter: $f) { value exact } countTaskExecutions(filter: $t) { value } workflowInstanceStatusCounts(filter: $f) { status } }',
    ),
    variables: partial({ f: filterOf(instanceLeavesWithTasks), t: filterOf(taskLeaves) }),
  }),
  fc.record({
    query: fc.constant('query ($i: ID!, $t: ID!) { getWorkflowInstance(id: $i) { id } getTaskExecution(id: $t) { id } getTaskExecutionsByWorkflowInstance(workflowInstanceId: $i) { id } }'),
    variables: fc.record({ i: maybeWrong(text), t: maybeWrong(text) }),
  }),
);

// eslint-disable-next-line no-control-regex -- NUL is exactly what is looked for.
const FORBIDDEN_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every string the Reader was given, anywhere in its arguments. */
function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

function filterDepth(node: unknown): number {
  if (node === null || typeof node !== 'object') return 0;
  const n = node as { kind: string; nodes?: unknown[]; node?: unknown };
  if (n.kind === 'not') return 1 + filterDepth(n.node);
  if (n.kind === 'and' || n.kind === 'or') return 1 + Math.max(0, ...(n.nodes ?? []).map(filterDepth));
  // relation filters nest a whole filter: one level more
  if (n.kind === 'tasks' || n.kind === 'instance') return 1 + filterDepth(n.node);
  return 0;
}

describe('fuzz: no filter input yields an internal error', () => {
  it('every answer is data or BAD_USER_INPUT; the Reader never sees a NUL, a lone surrogate or a filter deeper than the limit', async () => {
    const reader = new RecordingReader();
    const t = testApp({ reader });
    await fc.assert(
      fc.asyncProperty(request, async ({ query, variables }) => {
        reader.calls.length = 0;
        const { status, body } = await postGraphQL(t.app, query, variables as Record<string, unknown>);
        expect([200, 400]).toContain(status);
        for (const code of codes(body)) expect(code).toBe('BAD_USER_INPUT');
        expect(t.log.entries.filter((e) => e['level'] === 'error' || e['level'] === 'warn')).toEqual([]);
        for (const call of reader.calls as ReaderCall[]) {
          for (const s of stringsIn(call)) expect(FORBIDDEN_TEXT.test(s), JSON.stringify(s)).toBe(false);
          expect(filterDepth('query' in call ? call.query.filter : 'filter' in call ? call.filter : null)).toBeLessThanOrEqual(33);
          // durations reach the backend as finite milliseconds within the documented range
          for (const match of JSON.stringify(call).matchAll(/"kind":"duration","predicate":\{"op":"(?:gt|gte|lt|lte)","value":([^}]+)\}/g)) {
            expect(Math.abs(Number(match[1]))).toBeLessThanOrEqual(9e12);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
