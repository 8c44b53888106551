// GraphQL arguments → what the Reader receives. Driven through the real app (parse, shorthand
// expansion, validation, coercion, resolvers), with a reader that records its calls.
import { describe, expect, it } from 'vitest';
import type { InstanceFilter, TaskFilter } from '../src/reader.js';
import { codes, postGraphQL, testApp } from '@workflow-index/testkit';
import type { TestApp } from '@workflow-index/testkit';

async function instanceQuery(t: TestApp, args: string, variables?: Record<string, unknown>, varDecl = '') {
  const query = `query Q${varDecl} { getWorkflowInstances${args} { id } }`;
  const before = t.reader.callsOf('listInstances').length;
  const result = await postGraphQL(t.app, query, variables);
  const calls = t.reader.callsOf('listInstances');
  return { ...result, query: calls.length > before ? calls.at(-1)?.query : undefined };
}

async function instanceFilter(literal: string): Promise<InstanceFilter | null | undefined> {
  const t = testApp();
  const { body, query } = await instanceQuery(t, `(filter: ${literal})`);
  expect(body.errors).toBeUndefined();
  return query?.filter;
}

async function taskFilter(literal: string): Promise<TaskFilter | null | undefined> {
  const t = testApp();
  const { body } = await postGraphQL(t.app, `{ getTaskExecutions(filter: ${literal}) { id } }`);
  expect(body.errors).toBeUndefined();
  return t.reader.callsOf('listTasks').at(-1)?.query.filter;
}

const str = (field: string, op: string, value: unknown) => ({ kind: 'string', field, predicate: op === 'in' ? { op, values: value } : { op, value } });
const time = (field: string, op: string, value: string) => ({ kind: 'time', field, predicate: { op, value } });

describe('instance filters: every operator of every field', () => {
  const stringFields = ['id', 'name', 'namespace', 'version'] as const;
  it.each(stringFields)('%s: eq ne contains startsWith endsWith in isNull', async (field) => {
    expect(await instanceFilter(`{${field}: {eq: "a"}}`)).toEqual(str(field, 'eq', 'a'));
    expect(await instanceFilter(`{${field}: {ne: "a"}}`)).toEqual(str(field, 'ne', 'a'));
    expect(await instanceFilter(`{${field}: {contains: "a*%"}}`)).toEqual(str(field, 'contains', 'a*%'));
    expect(await instanceFilter(`{${field}: {startsWith: "a?"}}`)).toEqual(str(field, 'startsWith', 'a?'));
    expect(await instanceFilter(`{${field}: {endsWith: "_a"}}`)).toEqual(str(field, 'endsWith', '_a'));
    expect(await instanceFilter(`{${field}: {in: ["a", "b"]}}`)).toEqual(str(field, 'in', ['a', 'b']));
    expect(await instanceFilter(`{${field}: {isNull: true}}`)).toEqual(str(field, 'isNull', true));
    expect(await instanceFilter(`{${field}: {isNull: false}}`)).toEqual(str(field, 'isNull', false));
  });

  it.each(stringFields)('%s: like is parsed into segments (* any run, ? one char, %% and _ literal)', async (field) => {
    expect(await instanceFilter(`{${field}: {like: "order-*"}}`)).toEqual({
      kind: 'string',
      field,
      predicate: { op: 'like', pattern: [{ kind: 'literal', text: 'order-' }, { kind: 'any' }] },
    });
    expect(await instanceFilter(`{${field}: {like: "?0%_x"}}`)).toEqual({
      kind: 'string',
      field,
      predicate: { op: 'like', pattern: [{ kind: 'one' }, { kind: 'literal', text: '0%_x' }] },
    });
  });

  it('in: [] is passed through (the backend matches nothing)', async () => {
    expect(await instanceFilter('{name: {in: []}}')).toEqual(str('name', 'in', []));
  });

  it('status: eq ne in (enum values)', async () => {
    expect(await instanceFilter('{status: {eq: COMPLETED}}')).toEqual(str('status', 'eq', 'COMPLETED'));
    expect(await instanceFilter('{status: {ne: RUNNING}}')).toEqual(str('status', 'ne', 'RUNNING'));
    expect(await instanceFilter('{status: {in: [FAULTED, CANCELLED, SUSPENDED]}}')).toEqual(str('status', 'in', ['FAULTED', 'CANCELLED', 'SUSPENDED']));
  });

  it.each([
    ['startDate', 'startDate'],
    ['startTime', 'startDate'],
    ['endDate', 'endDate'],
    ['endTime', 'endDate'],
    ['lastUpdate', 'lastUpdate'],
  ])('%s (→ %s): eq ne gt gte lt lte between isNull, normalized to UTC microseconds', async (name, field) => {
    for (const op of ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']) {
      expect(await instanceFilter(`{${name}: {${op}: "2026-05-12T11:14:03.5+02:00"}}`)).toEqual(time(field, op, '2026-05-12T09:14:03.500000Z'));
    }
    expect(await instanceFilter(`{${name}: {between: {from: "2026-05-12T09:00:00Z", to: "2026-05-12T10:00:00.123456Z"}}}`)).toEqual({
      kind: 'time',
      field,
      predicate: { op: 'between', from: '2026-05-12T09:00:00.000000Z', to: '2026-05-12T10:00:00.123456Z' },
    });
    expect(await instanceFilter(`{${name}: {isNull: true}}`)).toEqual({ kind: 'time', field, predicate: { op: 'isNull', value: true } });
  });

  it('input/output: every {key, value} pair, key split on dots', async () => {
    expect(await instanceFilter('{input: {eq: [{key: "customer.address.city", value: "Zürich"}, {key: "items.0.qty", value: "1"}]}}')).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'json', field: 'input', path: ['customer', 'address', 'city'], value: 'Zürich' },
        { kind: 'json', field: 'input', path: ['items', '0', 'qty'], value: '1' },
      ],
    });
    expect(await instanceFilter('{output: {eq: [{key: "ok", value: "true"}]}}')).toEqual({ kind: 'json', field: 'output', path: ['ok'], value: 'true' });
  });

  it.each(['a..b', '.a', 'a.', ''])('input key %j with an empty segment is BAD_USER_INPUT', async (key) => {
    const t = testApp();
    const { body, query } = await instanceQuery(t, `(filter: {input: {eq: [{key: ${JSON.stringify(key)}, value: "x"}]}})`);
    expect(body.errors?.[0]?.message).toBe(
      `filter.input.eq[0].key must be a dot path of non-empty segments, e.g. customer.address.city or items.0.sku; got ${JSON.stringify(key)}`,
    );
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(query).toBeUndefined();
  });

  it('error: text fields with string operators, status with int operators', async () => {
    expect(await instanceFilter('{error: {type: {endsWith: "/communication"}, title: {eq: "T"}, detail: {contains: "d"}, instance: {startsWith: "do/1"}}}')).toEqual({
      kind: 'and',
      nodes: [str('error.type', 'endsWith', '/communication'), str('error.title', 'eq', 'T'), str('error.detail', 'contains', 'd'), str('error.instance', 'startsWith', 'do/1')],
    });
    const int = (op: string, value: unknown) => ({ kind: 'int', field: 'error.status', predicate: op === 'in' ? { op, values: value } : { op, value } });
    for (const op of ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']) expect(await instanceFilter(`{error: {status: {${op}: 503}}}`)).toEqual(int(op, 503));
    expect(await instanceFilter('{error: {status: {in: [500, 503]}}}')).toEqual(int('in', [500, 503]));
    expect(await instanceFilter('{error: {title: {isNull: true}}}')).toEqual(str('error.title', 'isNull', true));
  });

  it('all operators of one field AND together', async () => {
    expect(await instanceFilter('{name: {startsWith: "order", ne: "order-intake", like: "*e"}}')).toEqual({
      kind: 'and',
      nodes: [str('name', 'ne', 'order-intake'), str('name', 'startsWith', 'order'), { kind: 'string', field: 'name', predicate: { op: 'like', pattern: [{ kind: 'any' }, { kind: 'literal', text: 'e' }] } }],
    });
    expect(await instanceFilter('{startDate: {gte: "2026-05-12T09:00:00Z", lt: "2026-05-12T10:00:00Z"}}')).toEqual({
      kind: 'and',
      nodes: [time('startDate', 'gte', '2026-05-12T09:00:00.000000Z'), time('startDate', 'lt', '2026-05-12T10:00:00.000000Z')],
    });
  });

  it('startTime and startDate both given: both conditions hold', async () => {
    expect(await instanceFilter('{startTime: {gt: "2026-05-12T09:00:00Z"}, startDate: {lt: "2026-05-12T10:00:00Z"}}')).toEqual({
      kind: 'and',
      nodes: [time('startDate', 'gt', '2026-05-12T09:00:00.000000Z'), time('startDate', 'lt', '2026-05-12T10:00:00.000000Z')],
    });
  });

  it('and / or / not nest', async () => {
    expect(await instanceFilter('{or: [{name: {eq: "a"}}, {and: [{namespace: {eq: "n"}}, {not: {status: {eq: FAULTED}}}]}], not: {version: {isNull: true}}}')).toEqual({
      kind: 'and',
      nodes: [
        {
          kind: 'or',
          nodes: [str('name', 'eq', 'a'), { kind: 'and', nodes: [str('namespace', 'eq', 'n'), { kind: 'not', node: str('status', 'eq', 'FAULTED') }] }],
        },
        { kind: 'not', node: str('version', 'isNull', true) },
      ],
    });
  });

  it('empty and/or lists keep their meaning (and: [] everything, or: [] nothing)', async () => {
    expect(await instanceFilter('{and: []}')).toBeNull();
    expect(await instanceFilter('{name: {eq: "a"}, and: []}')).toEqual({ kind: 'and', nodes: [str('name', 'eq', 'a'), { kind: 'and', nodes: [] }] });
    expect(await instanceFilter('{or: []}')).toEqual({ kind: 'or', nodes: [] });
    expect(await instanceFilter('{not: {}}')).toEqual({ kind: 'not', node: { kind: 'and', nodes: [] } });
  });

  it('no filter, an empty filter, or only nulls place no condition', async () => {
    expect(await instanceFilter('{}')).toBeNull();
    expect(await instanceFilter('{name: null, status: {eq: null}}')).toBeNull();
    const t = testApp();
    expect((await instanceQuery(t, '')).query?.filter).toBeNull();
  });
});

describe('task filters', () => {
  it.each(['id', 'workflowInstanceId', 'taskName'])('%s: string operators', async (field) => {
    expect(await taskFilter(`{${field}: {eq: "a", ne: "b", in: ["c"], contains: "d", startsWith: "e", endsWith: "f", isNull: false, like: "g*"}}`)).toEqual({
      kind: 'and',
      nodes: [
        str(field, 'eq', 'a'),
        str(field, 'ne', 'b'),
        str(field, 'contains', 'd'),
        str(field, 'startsWith', 'e'),
        str(field, 'endsWith', 'f'),
        str(field, 'in', ['c']),
        { kind: 'string', field, predicate: { op: 'like', pattern: [{ kind: 'literal', text: 'g' }, { kind: 'any' }] } },
        str(field, 'isNull', false),
      ],
    });
  });

  it('taskPosition accepts a leading slash and is normalized to the stored form', async () => {
    expect(await taskFilter('{taskPosition: {eq: "/do/1/chargeCard"}}')).toEqual(str('taskPosition', 'eq', 'do/1/chargeCard'));
    expect(await taskFilter('{taskPosition: {eq: "do/1/chargeCard"}}')).toEqual(str('taskPosition', 'eq', 'do/1/chargeCard'));
    expect(await taskFilter('{taskPosition: {ne: "/do/0/a"}}')).toEqual(str('taskPosition', 'ne', 'do/0/a'));
    expect(await taskFilter('{taskPosition: {in: ["/do/0/a", "do/1/b"]}}')).toEqual(str('taskPosition', 'in', ['do/0/a', 'do/1/b']));
    expect(await taskFilter('{taskPosition: {startsWith: "/do/0"}}')).toEqual(str('taskPosition', 'startsWith', 'do/0'));
    expect(await taskFilter('{taskPosition: {like: "/do/?/*"}}')).toEqual({
      kind: 'string',
      field: 'taskPosition',
      predicate: { op: 'like', pattern: [{ kind: 'literal', text: 'do/' }, { kind: 'one' }, { kind: 'literal', text: '/' }, { kind: 'any' }] },
    });
    // contains/endsWith look inside the position: a slash there is meaningful.
    expect(await taskFilter('{taskPosition: {contains: "/1/"}}')).toEqual(str('taskPosition', 'contains', '/1/'));
    expect(await taskFilter('{taskPosition: {endsWith: "/chargeCard"}}')).toEqual(str('taskPosition', 'endsWith', '/chargeCard'));
  });

  it('status: FAILED means FAULTED', async () => {
    expect(await taskFilter('{status: {eq: "FAILED"}}')).toEqual(str('status', 'eq', 'FAULTED'));
    expect(await taskFilter('{status: {ne: "FAILED"}}')).toEqual(str('status', 'ne', 'FAULTED'));
    expect(await taskFilter('{status: {in: ["FAILED", "COMPLETED", "RUNNING", "CANCELLED", "SUSPENDED", "FAULTED"]}}')).toEqual(
      str('status', 'in', ['FAULTED', 'COMPLETED', 'RUNNING', 'CANCELLED', 'SUSPENDED', 'FAULTED']),
    );
  });

  it('an unknown task status is BAD_USER_INPUT naming the allowed ones', async () => {
    const t = testApp();
    const { body } = await postGraphQL(t.app, '{ getTaskExecutions(filter: {or: [{status: {in: ["DONE"]}}]}) { id } }');
    expect(body.errors?.[0]?.message).toBe('filter.or[0].status.in must be one of RUNNING, COMPLETED, FAULTED, CANCELLED, SUSPENDED (FAILED means FAULTED); got "DONE"');
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(t.reader.callsOf('listTasks')).toEqual([]);
  });

  it.each([
    ['enter', 'startDate'],
    ['startDate', 'startDate'],
    ['exit', 'endDate'],
    ['endDate', 'endDate'],
  ])('%s (→ %s): time operators', async (name, field) => {
    expect(await taskFilter(`{${name}: {gte: "2026-05-12T09:14:03.512566Z", isNull: false}}`)).toEqual({
      kind: 'and',
      nodes: [time(field, 'gte', '2026-05-12T09:14:03.512566Z'), { kind: 'time', field, predicate: { op: 'isNull', value: false } }],
    });
  });

  it('inputArgs/outputArgs are the input/output JSON fields; error fields as on instances', async () => {
    expect(await taskFilter('{inputArgs: {eq: [{key: "orderId", value: "ORD-1"}]}, outputArgs: {eq: [{key: "a.b", value: "2"}]}, error: {status: {eq: 402}}}')).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'json', field: 'input', path: ['orderId'], value: 'ORD-1' },
        { kind: 'json', field: 'output', path: ['a', 'b'], value: '2' },
        { kind: 'int', field: 'error.status', predicate: { op: 'eq', value: 402 } },
      ],
    });
  });

  it('and / or / not', async () => {
    expect(await taskFilter('{not: {or: [{taskName: {eq: "a"}}, {status: {eq: "RUNNING"}}]}}')).toEqual({
      kind: 'not',
      node: { kind: 'or', nodes: [str('taskName', 'eq', 'a'), str('status', 'eq', 'RUNNING')] },
    });
  });
});

describe('shorthand: a bare value means {eq: value}', () => {
  it('in query literals', async () => {
    expect(await instanceFilter('{status: COMPLETED}')).toEqual(str('status', 'eq', 'COMPLETED'));
    expect(await instanceFilter('{name: "order-intake", namespace: "com.acme"}')).toEqual({
      kind: 'and',
      nodes: [str('name', 'eq', 'order-intake'), str('namespace', 'eq', 'com.acme')],
    });
    expect(await instanceFilter('{startDate: "2026-05-12T09:14:03Z"}')).toEqual(time('startDate', 'eq', '2026-05-12T09:14:03.000000Z'));
    expect(await instanceFilter('{error: {status: 503, title: "Service Unavailable"}}')).toEqual({
      kind: 'and',
      nodes: [str('error.title', 'eq', 'Service Unavailable'), { kind: 'int', field: 'error.status', predicate: { op: 'eq', value: 503 } }],
    });
    expect(await taskFilter('{status: "FAILED", taskPosition: "/do/1/chargeCard"}')).toEqual({
      kind: 'and',
      nodes: [str('taskPosition', 'eq', 'do/1/chargeCard'), str('status', 'eq', 'FAULTED')],
    });
  });

  it('inside and / or / not', async () => {
    expect(await instanceFilter('{or: [{status: FAULTED}, {and: [{name: "a"}]}], not: {namespace: "n"}}')).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'or', nodes: [str('status', 'eq', 'FAULTED'), { kind: 'and', nodes: [str('name', 'eq', 'a')] }] },
        { kind: 'not', node: str('namespace', 'eq', 'n') },
      ],
    });
  });

  it('with a variable of the value type in place of the operator object', async () => {
    const t = testApp();
    const { body, query } = await instanceQuery(t, '(filter: {status: $s, name: $n})', { s: 'CANCELLED', n: 'order-intake' }, '($s: WorkflowInstanceStatus, $n: String!)');
    expect(body.errors).toBeUndefined();
    expect(query?.filter).toEqual({ kind: 'and', nodes: [str('name', 'eq', 'order-intake'), str('status', 'eq', 'CANCELLED')] });
  });

  it('in variables, at any depth', async () => {
    const t = testApp();
    const variables = { f: { status: 'FAULTED', name: 'payment-capture', error: { status: 503 }, or: [{ namespace: 'com.acme.billing' }, { not: { version: '1.0.0' } }], startTime: '2026-05-12T09:14:03+00:00' } };
    const { body, query } = await instanceQuery(t, '(filter: $f)', variables, '($f: WorkflowInstanceFilterInput)');
    expect(body.errors).toBeUndefined();
    expect(query?.filter).toEqual({
      kind: 'and',
      nodes: [
        str('name', 'eq', 'payment-capture'),
        str('status', 'eq', 'FAULTED'),
        time('startDate', 'eq', '2026-05-12T09:14:03.000000Z'),
        { kind: 'int', field: 'error.status', predicate: { op: 'eq', value: 503 } },
        { kind: 'or', nodes: [str('namespace', 'eq', 'com.acme.billing'), { kind: 'not', node: str('version', 'eq', '1.0.0') }] },
      ],
    });
  });

  it('in variables for tasks, mixed with full operator objects', async () => {
    const t = testApp();
    const { body } = await postGraphQL(t.app, 'query($f: TaskExecutionFilterInput!) { getTaskExecutions(filter: $f) { id } }', {
      f: { status: 'FAILED', taskName: { startsWith: 'charge' }, and: [{ taskPosition: '/do/1/chargeCard' }] },
    });
    expect(body.errors).toBeUndefined();
    expect(t.reader.callsOf('listTasks')[0]?.query.filter).toEqual({
      kind: 'and',
      nodes: [str('taskName', 'startsWith', 'charge'), str('status', 'eq', 'FAULTED'), { kind: 'and', nodes: [str('taskPosition', 'eq', 'do/1/chargeCard')] }],
    });
  });

  it('does not apply to JSON fields: a bare value there is a validation error', async () => {
    const t = testApp();
    const literal = await postGraphQL(t.app, '{ getWorkflowInstances(filter: {input: "x"}) { id } }');
    expect(codes(literal.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    const variable = await postGraphQL(t.app, 'query($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }', { f: { input: 'x' } });
    expect(codes(variable.body)).toEqual(['BAD_USER_INPUT']);
    expect(t.reader.callsOf('listInstances')).toEqual([]);
  });

  it('introspection still shows the typed filter inputs', async () => {
    const t = testApp();
    const { body } = await postGraphQL(t.app, '{ __type(name: "WorkflowInstanceFilterInput") { inputFields { name type { name } } } }');
    const fields = (body.data?.['__type'] as { inputFields: { name: string; type: { name: string } }[] }).inputFields;
    expect(fields.find((f) => f.name === 'status')?.type.name).toBe('WorkflowInstanceStatusFilterInput');
    expect(fields.find((f) => f.name === 'name')?.type.name).toBe('StringFilterInput');
    expect(fields.find((f) => f.name === 'startTime')?.type.name).toBe('DateTimeFilterInput');
  });
});

describe('DateTime arguments', () => {
  it('a literal without offset is BAD_USER_INPUT with a clear message, and nothing runs', async () => {
    const t = testApp();
    const { body } = await postGraphQL(t.app, '{ getWorkflowInstances(filter: {startDate: {gt: "2026-05-12T09:14:03"}}) { id } }');
    expect(body.errors?.[0]?.message).toBe('DateTime needs a time zone offset, e.g. 2026-05-12T09:14:03Z or 2026-05-12T11:14:03.512+02:00; got "2026-05-12T09:14:03"');
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(t.reader.calls).toEqual([]);
  });

  it('a date-only variable is BAD_USER_INPUT', async () => {
    const t = testApp();
    const { body } = await postGraphQL(t.app, 'query($d: DateTime!) { getWorkflowInstances(filter: {endDate: {lte: $d}}) { id } }', { d: '2026-05-12' });
    expect(body.errors?.[0]?.message).toBe(
      'Variable "$d" got invalid value "2026-05-12"; DateTime needs a time and a time zone offset, e.g. 2026-05-12T09:14:03Z or 2026-05-12T11:14:03.512+02:00; got "2026-05-12"',
    );
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(t.reader.calls).toEqual([]);
  });

  it('a non-string literal is BAD_USER_INPUT', async () => {
    const t = testApp();
    const { body } = await postGraphQL(t.app, '{ getWorkflowInstances(filter: {endDate: {lte: 1778577243}}) { id } }');
    expect(body.errors?.[0]?.message).toBe('DateTime must be a string such as "2026-05-12T09:14:03Z", got 1778577243');
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('orderBy in written order', () => {
  it('from a literal, aliases mapped, keys in the order written (not the type order)', async () => {
    const t = testApp();
    const { query } = await instanceQuery(t, '(orderBy: {lastUpdate: DESC, name: ASC, startTime: DESC, id: ASC})');
    expect(query?.orderBy).toEqual([
      { field: 'lastUpdate', direction: 'DESC' },
      { field: 'name', direction: 'ASC' },
      { field: 'startDate', direction: 'DESC' },
      { field: 'id', direction: 'ASC' },
    ]);
  });

  it('from variables, in the key order of the variables JSON', async () => {
    const t = testApp();
    const { query } = await instanceQuery(t, '(orderBy: $o)', { o: { status: 'ASC', endTime: 'DESC', namespace: 'DESC', version: 'ASC' } }, '($o: WorkflowInstanceOrderByInput)');
    expect(query?.orderBy).toEqual([
      { field: 'status', direction: 'ASC' },
      { field: 'endDate', direction: 'DESC' },
      { field: 'namespace', direction: 'DESC' },
      { field: 'version', direction: 'ASC' },
    ]);
    const reversed = await instanceQuery(t, '(orderBy: $o)', { o: { version: 'ASC', namespace: 'DESC', endTime: 'DESC', status: 'ASC' } }, '($o: WorkflowInstanceOrderByInput)');
    expect(reversed.query?.orderBy.map((k) => k.field)).toEqual(['version', 'namespace', 'endDate', 'status']);
  });

  it('a literal object with variable directions keeps the written key order', async () => {
    const t = testApp();
    const { query } = await instanceQuery(t, '(orderBy: {startDate: $d, name: ASC})', { d: 'ASC' }, '($d: OrderBy)');
    expect(query?.orderBy).toEqual([
      { field: 'startDate', direction: 'ASC' },
      { field: 'name', direction: 'ASC' },
    ]);
  });

  it('task aliases enter/exit; a field named twice counts where it first appears; null directions are skipped', async () => {
    const t = testApp();
    await postGraphQL(t.app, '{ getTaskExecutions(orderBy: {exit: ASC, taskPosition: null, enter: DESC, startDate: ASC, taskName: DESC}) { id } }');
    expect(t.reader.callsOf('listTasks')[0]?.query.orderBy).toEqual([
      { field: 'endDate', direction: 'ASC' },
      { field: 'startDate', direction: 'DESC' },
      { field: 'taskName', direction: 'DESC' },
    ]);
  });

  it('absent orderBy leaves the reader default (empty list)', async () => {
    const t = testApp();
    expect((await instanceQuery(t, '')).query?.orderBy).toEqual([]);
    expect((await instanceQuery(t, '(orderBy: {})')).query?.orderBy).toEqual([]);
  });
});

describe('pagination', () => {
  it('defaults: limit 100, offset 0', async () => {
    const t = testApp();
    const { query } = await instanceQuery(t, '');
    expect([query?.limit, query?.offset]).toEqual([100, 0]);
  });

  it('limit and offset are passed on', async () => {
    const t = testApp();
    const { query } = await instanceQuery(t, '(limit: 20, offset: 40)');
    expect([query?.limit, query?.offset]).toEqual([20, 40]);
    const max = await instanceQuery(t, '(limit: 1000)');
    expect(max.query?.limit).toBe(1000);
  });

  it('limit: 0 returns [] without calling the reader', async () => {
    const t = testApp();
    const { body } = await postGraphQL(t.app, '{ i: getWorkflowInstances(limit: 0) { id } t: getTaskExecutions(limit: 0, filter: {status: "FAILED"}) { id } }');
    expect(body).toEqual({ data: { i: [], t: [] } });
    expect(t.reader.calls).toEqual([]);
  });

  it.each([
    ['(limit: -1)', 'limit must be between 0 and 1000, got -1'],
    ['(limit: 5000)', 'limit must be between 0 and 1000, got 5000'],
    ['(offset: -3)', 'offset must be 0 or greater, got -3'],
  ])('%s is BAD_USER_INPUT naming the bound', async (args, message) => {
    const t = testApp();
    const instances = await postGraphQL(t.app, `{ getWorkflowInstances${args} { id } }`);
    expect(instances.body.errors?.map((e) => [e.message, e.extensions?.['code']])).toEqual([[message, 'BAD_USER_INPUT']]);
    const tasks = await postGraphQL(t.app, `{ getTaskExecutions${args} { id } }`);
    expect(tasks.body.errors?.map((e) => [e.message, e.extensions?.['code']])).toEqual([[message, 'BAD_USER_INPUT']]);
    expect(t.reader.calls).toEqual([]);
  });

  it('bounds come from the configuration', async () => {
    const t = testApp({ env: { GRAPHQL_DEFAULT_LIMIT: '7', GRAPHQL_MAX_LIMIT: '50' } });
    expect((await instanceQuery(t, '')).query?.limit).toBe(7);
    const { body } = await postGraphQL(t.app, '{ getWorkflowInstances(limit: 51) { id } }');
    expect(body.errors?.[0]?.message).toBe('limit must be between 0 and 50, got 51');
  });
});

describe('payloads flag follows the selection', () => {
  it('false without inputData/outputData, true with them (directly or through fragments)', async () => {
    const t = testApp();
    await postGraphQL(t.app, '{ getWorkflowInstances { id name } }');
    await postGraphQL(t.app, '{ getWorkflowInstances { id outputData } }');
    await postGraphQL(t.app, '{ getWorkflowInstances { ...F } } fragment F on WorkflowInstance { ... on WorkflowInstance { inputData } }');
    expect(t.reader.callsOf('listInstances').map((c) => c.query.payloads)).toEqual([false, true, true]);
    await postGraphQL(t.app, '{ getWorkflowInstance(id: "inst-a") { id } getTaskExecution(id: "inst-a:do/0/validateOrder") { inputData } }');
    expect(t.reader.callsOf('getInstance').map((c) => c.payloads)).toEqual([false]);
    expect(t.reader.callsOf('getTask').map((c) => c.payloads)).toEqual([true]);
    await postGraphQL(t.app, '{ getWorkflowInstances { inputData taskExecutions { id } } }');
    expect(t.reader.callsOf('tasksOfInstances').map((c) => c.payloads)).toEqual([false]);
  });
});
