// Variables declared as the Java Data Index's schema declares them: every list item and every JSON pair field is
// nullable there ([String], [Int], [WorkflowInstanceStatus], [JsonFieldFilterInput], key: String, value: String).
// Such declarations validate here; a null list item is skipped (it equals no value; a null pair places no condition),
// a pair without its key or value is BAD_USER_INPUT naming it. What the filters match on real data: the conformance
// suite (filter-assertions, error-assertions).
import { describe, expect, it } from 'vitest';
import { compiledExecutionStats, HOT_AFTER } from '../src/compiled-execution.js';
import { codes, postGraphQL, testApp } from '@workflow-index/testkit';

const INSTANCES = `query JavaInstances($names: [String], $statuses: [WorkflowInstanceStatus], $codes: [Int], $pairs: [JsonFieldFilterInput], $key: String, $value: String, $limit: Int, $offset: Int) {
  getWorkflowInstances(limit: $limit, offset: $offset, filter: {name: {in: $names}, status: {in: $statuses}, error: {status: {in: $codes}}, input: {eq: $pairs}, output: {eq: [{key: $key, value: $value}]}}) { id }
}`;

const TASKS = `query JavaTasks($positions: [String], $statuses: [String], $pairs: [JsonFieldFilterInput]) {
  getTaskExecutions(filter: {taskPosition: {in: $positions}, status: {in: $statuses}, inputArgs: {eq: $pairs}}) { id }
}`;

describe('variables declared as the Java schema declares them', () => {
  it('validate and run: [String], [WorkflowInstanceStatus], [Int], [JsonFieldFilterInput], key/value String', async () => {
    const { app, reader } = testApp();
    const { status, body } = await postGraphQL(app, INSTANCES, {
      names: ['order-intake'],
      statuses: ['COMPLETED', 'FAULTED'],
      codes: [503],
      pairs: [{ key: 'customer.id', value: '42' }],
      key: 'ok',
      value: 'true',
      limit: 10,
      offset: 0,
    });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(reader.callsOf('listInstances')[0]?.query.filter).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'string', field: 'name', predicate: { op: 'in', values: ['order-intake'] } },
        { kind: 'string', field: 'status', predicate: { op: 'in', values: ['COMPLETED', 'FAULTED'] } },
        { kind: 'json', field: 'input', path: ['customer', 'id'], value: '42' },
        { kind: 'json', field: 'output', path: ['ok'], value: 'true' },
        { kind: 'int', field: 'error.status', predicate: { op: 'in', values: [503] } },
      ],
    });
  });

  it('null items of in lists are skipped (in: [null] matches nothing, like in: []); null pairs place no condition', async () => {
    const { app, reader } = testApp();
    const { status, body } = await postGraphQL(app, INSTANCES, {
      names: [null, 'order-intake', null],
      statuses: [null],
      codes: [null, 503],
      pairs: [null, { key: 'customer.id', value: '42' }, null],
      key: 'ok',
      value: 'true',
    });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(reader.callsOf('listInstances')[0]?.query.filter).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'string', field: 'name', predicate: { op: 'in', values: ['order-intake'] } },
        { kind: 'string', field: 'status', predicate: { op: 'in', values: [] } },
        { kind: 'json', field: 'input', path: ['customer', 'id'], value: '42' },
        { kind: 'json', field: 'output', path: ['ok'], value: 'true' },
        { kind: 'int', field: 'error.status', predicate: { op: 'in', values: [503] } },
      ],
    });
  });

  it('task filters: [String] positions and statuses, [JsonFieldFilterInput] with a null item', async () => {
    const { app, reader } = testApp();
    const { status, body } = await postGraphQL(app, TASKS, { positions: ['/do/0/validateOrder', null], statuses: ['FAILED', null], pairs: [null] });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(reader.callsOf('listTasks')[0]?.query.filter).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'string', field: 'taskPosition', predicate: { op: 'in', values: ['do/0/validateOrder'] } },
        { kind: 'string', field: 'status', predicate: { op: 'in', values: ['FAULTED'] } },
      ],
    });
  });

  it('null items inside a filter variable and in literals are skipped the same way', async () => {
    const { app, reader } = testApp();
    const viaVariable = await postGraphQL(app, 'query ($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $filter) { id } }', {
      filter: { namespace: { in: ['com.acme', null] }, input: { eq: [null], ne: [null, { key: 'a', value: 'b' }], in: [null, { key: 'c', values: [null, 'd'] }], exists: [null] } },
    });
    const viaLiteral = await postGraphQL(
      app,
      '{ getWorkflowInstances(filter: {namespace: {in: ["com.acme", null]}, input: {eq: [null], ne: [null, {key: "a", value: "b"}], in: [null, {key: "c", values: [null, "d"]}], exists: [null]}}) { id } }',
    );
    expect(viaVariable.body.errors).toBeUndefined();
    expect(viaLiteral.body).toEqual(viaVariable.body);
    const [first, second] = reader.callsOf('listInstances');
    expect(first?.query.filter).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'string', field: 'namespace', predicate: { op: 'in', values: ['com.acme'] } },
        { kind: 'jsonOp', field: 'input', path: ['a'], predicate: { op: 'ne', value: 'b' } },
        { kind: 'jsonOp', field: 'input', path: ['c'], predicate: { op: 'in', values: ['d'] } },
      ],
    });
    expect(second?.query.filter).toEqual(first?.query.filter);
  });

  for (const [title, variables, where] of [
    ['a null value', { key: 'ok', value: null }, 'filter.output.eq[0].value'],
    ['an omitted value', { key: 'ok' }, 'filter.output.eq[0].value'],
    ['a null key', { key: null, value: 'true' }, 'filter.output.eq[0].key'],
  ] as const) {
    it(`a pair with ${title} is BAD_USER_INPUT naming it, not a validation error`, async () => {
      const { app, reader } = testApp();
      const { status, body } = await postGraphQL(app, INSTANCES, variables);
      expect(status).toBe(200);
      expect(codes(body)).toEqual(['BAD_USER_INPUT']);
      expect(body.errors?.[0]?.message).toContain(`${where} is required`);
      expect(reader.callsOf('listInstances')).toEqual([]);
    });
  }

  it('a pair without its key in a literal is BAD_USER_INPUT naming it', async () => {
    const { app } = testApp();
    const { body } = await postGraphQL(app, '{ getTaskExecutions(filter: {outputArgs: {contains: [{value: "x"}]}}) { id } }');
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(body.errors?.[0]?.message).toContain('filter.outputArgs.contains[0].key is required');
  });

  it('the compiled path (scalar list variables) answers as graphql-js does, null items included', async () => {
    const { app, reader } = testApp();
    const query = 'query ($names: [String], $statuses: [WorkflowInstanceStatus], $key: String, $value: String) { getWorkflowInstances(filter: {name: {in: $names}, status: {in: $statuses}, input: {eq: [{key: $key, value: $value}]}}) { id name } }';
    const variables = { names: ['order-intake', null], statuses: [null, 'COMPLETED'], key: 'a.b', value: '1' };
    const answers: string[] = [];
    const executionsBefore = compiledExecutionStats.executions;
    for (let i = 0; i < HOT_AFTER + 3; i++) answers.push((await postGraphQL(app, query, variables)).text);
    expect(compiledExecutionStats.executions - executionsBefore).toBeGreaterThan(0);
    expect(new Set(answers).size).toBe(1);
    expect(JSON.parse(answers[0] ?? '{}').errors).toBeUndefined();
    const filters = reader.callsOf('listInstances').map((c) => JSON.stringify(c.query.filter));
    expect(filters).toHaveLength(HOT_AFTER + 3);
    expect(new Set(filters).size).toBe(1);
    // A missing value on the compiled path: the same BAD_USER_INPUT as on graphql-js.
    const bad: string[] = [];
    for (let i = 0; i < HOT_AFTER + 2; i++) bad.push((await postGraphQL(app, query, { ...variables, value: null })).text);
    expect(new Set(bad).size).toBe(1);
    expect(JSON.parse(bad[0] ?? '{}').errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
