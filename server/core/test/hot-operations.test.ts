// Hot requests (server/core/src/hot-operations.ts): on real sockets, a POST /graphql whose operation already ran
// compiled without errors is answered without yoga. Its answers must be yoga's: a server with compiled execution off
// (graphql-js behind yoga, every request) is the oracle, request by request, for generated requests around the hot
// operations (other framings, variables that do not coerce, costs over the limit, other operation names, extra
// keys). The request log, the metrics and the cost budget see hot requests as they see the others.
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { compiledExecutionStats, HOT_AFTER, MAX_COMPILED_OPERATIONS } from '../src/compiled-execution.js';
import { hotRequestStats, HotOperations } from '../src/hot-operations.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import { BackendUnavailableError } from '../src/reader.js';
import type { Reader, WorkflowInstanceRecord } from '../src/reader.js';
import { MemoryLog, testConfig } from '@workflow-index/testkit';
import { INSTANCE_A, INSTANCE_B, RecordingReader } from '@workflow-index/testkit';

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

function send(port: number, headers: Record<string, string>, body: string, path = '/graphql'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

const instances: WorkflowInstanceRecord[] = [
  INSTANCE_A,
  INSTANCE_B,
  ...Array.from({ length: 30 }, (_, i): WorkflowInstanceRecord => ({ ...INSTANCE_A, id: `run-${i}`, status: i % 3 === 0 ? 'FAULTED' : 'COMPLETED' })),
];

async function start(env: Record<string, string> = {}, reader: RecordingReader = new RecordingReader({ instances })) {
  const config = testConfig({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', ...env });
  const log = new MemoryLog();
  const app = createApp({ config, reader: reader as Reader, logger: log.logger(), backend: 'test' });
  const server = await startHttpServer(app, config, log.logger());
  running.push(server);
  return { port: server.httpPort, log, reader };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

const PAGE = `query Page($status: WorkflowInstanceStatus!, $limit: Int) {
  getWorkflowInstances(limit: $limit, filter: {status: {eq: $status}}, orderBy: {startDate: DESC}) { id name status startDate endDate } }`;
const ONE = 'query One($id: ID!) { getWorkflowInstance(id: $id) { id name status taskExecutions { id taskName status } } }';
const TWO_ROOTS = 'query Two($id: ID!) { one: getWorkflowInstance(id: $id) { id } two: getWorkflowInstance(id: "inst-b") { id } ...More }\nfragment More on Query { list: getWorkflowInstances(limit: 2) { id } }';
/** Priced by its variable: limit + limit × the tasks' default limit. */
const MANY = 'query Many($limit: Int) { getWorkflowInstances(limit: $limit) { id taskExecutions { id } } }';
const ANONYMOUS = '{ getWorkflowInstances(limit: 2) { id status } }';
/** Priced by its variable too: 2 rows + 1 per 10 rows the offset skips. */
const SKIP = 'query Skip($offset: Int) { getWorkflowInstances(limit: 2, offset: $offset, orderBy: {id: ASC}) { id } }';
const TWO_OPERATIONS = 'query A { a: getWorkflowInstances(limit: 1) { id } } query B($id: ID!) { b: getWorkflowInstance(id: $id) { id status } }';

/** The hot requests the servers are warmed with: each document and operation, sent until it is hot. */
const WARM: ReadonlyArray<Record<string, unknown>> = [
  { query: PAGE, variables: { status: 'COMPLETED', limit: 5 } },
  { query: ONE, variables: { id: 'inst-a' } },
  { query: TWO_ROOTS, variables: { id: 'inst-b' } },
  { query: MANY, variables: { limit: 1 } },
  { query: SKIP, variables: { offset: 1 } },
  { query: ANONYMOUS },
  { query: TWO_OPERATIONS, operationName: 'A' },
  { query: TWO_OPERATIONS, operationName: 'B', variables: { id: 'inst-a' } },
];

async function warm(port: number): Promise<void> {
  for (const body of WARM) for (let i = 0; i <= HOT_AFTER; i += 1) expect((await send(port, JSON_HEADERS, JSON.stringify(body))).status).toBe(200);
}

/** What must be equal between the two servers: the status, the answer's type and its bytes. */
const visible = (r: RawResponse) => ({ status: r.status, type: r.headers['content-type'], body: r.body });

describe('hot requests over node:http', () => {
  it('a hot request is answered without yoga, with the bytes, headers and request log yoga gives', async () => {
    const hot = await start();
    const oracle = await start({ GRAPHQL_COMPILED_EXECUTION: 'false' });
    await warm(hot.port);
    const body = JSON.stringify({ query: PAGE, variables: { status: 'FAULTED', limit: 4 } });
    const before = { ...hotRequestStats };
    const fromHot = await send(hot.port, JSON_HEADERS, body);
    expect(hotRequestStats.answered - before.answered).toBe(1);
    const fromOracle = await send(oracle.port, JSON_HEADERS, body);
    expect(visible(fromHot)).toEqual(visible(fromOracle));
    expect(JSON.parse(fromHot.body).data.getWorkflowInstances).toHaveLength(4);
    // The same headers, in the same order, but the request id and the date.
    const names = (raw: string[]) => raw.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()).filter((n) => n !== 'x-request-id' && n !== 'date');
    const rawHeaders = async (port: number) => new Promise<string[]>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers: JSON_HEADERS, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.rawHeaders));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(names(await rawHeaders(hot.port))).toEqual(names(await rawHeaders(oracle.port)));
    expect(fromHot.headers['content-length']).toBe(String(Buffer.byteLength(fromHot.body)));
    // The request log line of a hot request carries what yoga's requests carry.
    const last = (log: MemoryLog) => log.entries.filter((e) => e['msg'] === 'request').at(-1);
    const hotLine = last(hot.log);
    const oracleLine = last(oracle.log);
    expect({ ...hotLine, durationMs: 0, time: 0, requestId: '' }).toEqual({ ...oracleLine, durationMs: 0, time: 0, requestId: '' });
    expect(hotLine).toMatchObject({ operationName: 'Page', operationType: 'query', status: 200, route: '/graphql' });
  });

  it('generated requests around the hot operations answer as a server without compiled execution does', { timeout: 120_000 }, async () => {
    const env = { GRAPHQL_MAX_LIMIT: '20', GRAPHQL_DEFAULT_LIMIT: '10', GRAPHQL_MAX_COST: '40', GRAPHQL_MAX_COST_IN_FLIGHT: '60' };
    const hot = await start(env);
    const oracle = await start({ ...env, GRAPHQL_COMPILED_EXECUTION: 'false' });
    await warm(hot.port);
    const before = { ...hotRequestStats };
    const variables = fc.oneof(
      fc.record({ status: fc.constantFrom('COMPLETED', 'FAULTED', 'RUNNING', 'NOPE', 7), limit: fc.oneof(fc.integer({ min: -1, max: 60 }), fc.constant('x'), fc.constant(null)) }, { requiredKeys: [] }),
      fc.record({ id: fc.oneof(fc.constantFrom('inst-a', 'inst-b', 'run-3', 'missing'), fc.integer()) }, { requiredKeys: [] }),
      fc.record({ offset: fc.oneof(fc.integer({ min: -1, max: 600 }), fc.constant(2_147_483_647), fc.constant(null)) }, { requiredKeys: [] }),
      fc.constant(null),
      fc.constant([1]),
      fc.constant('{"id":"inst-a"}'),
    );
    const request = fc.record({
      query: fc.oneof(fc.constantFrom(PAGE, ONE, TWO_ROOTS, MANY, SKIP, TWO_OPERATIONS), fc.constant(`${PAGE} `)),
      operationName: fc.option(fc.constantFrom('A', 'B', 'Page', 'One', 'Two', 'C'), { nil: undefined }),
      variables: fc.option(variables, { nil: undefined }),
      extra: fc.option(fc.constantFrom<Record<string, unknown>>({ extensions: {} }, { extensions: { persistedQuery: { version: 1 } } }, { foo: 1 }), { nil: undefined }),
      indent: fc.constantFrom(0, 2),
      accept: fc.constantFrom(undefined, '*/*', 'application/json', 'application/graphql-response+json', 'text/html', 'application/json, text/plain'),
      contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/json; charset=latin1'),
      path: fc.constantFrom('/graphql', '/graphql/', '/graphql?x=1'),
    });
    // Requests the hot path takes (valid variables, its framings), beside the request space above.
    const hotShaped = fc.record({
      query: fc.constantFrom(PAGE, ONE, TWO_ROOTS, MANY, SKIP, ANONYMOUS, TWO_OPERATIONS),
      operationName: fc.constantFrom(undefined, 'A', 'B', '', null),
      // GRAPHQL_MAX_COST 40: Skip runs up to offset 380 and is refused beyond
      variables: fc.record({ status: fc.constantFrom('COMPLETED', 'FAULTED', 'RUNNING'), limit: fc.integer({ min: 0, max: 25 }), offset: fc.integer({ min: 0, max: 600 }), id: fc.constantFrom('inst-a', 'inst-b', 'run-3', 'missing') }),
      extra: fc.constant(undefined),
      indent: fc.constantFrom(0, 2),
      accept: fc.constantFrom(undefined, '*/*', 'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json', 'application/json, application/graphql-response+json'),
      contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'APPLICATION/JSON', 'Application/Json; charset=utf-8'),
      path: fc.constant('/graphql'),
    }).map((r) => ({
      ...r,
      // Each document's own variables (a variable the operation does not define is a validation error: also sent).
      variables: r.query === PAGE ? { status: r.variables.status, limit: r.variables.limit } : r.query === MANY ? { limit: r.variables.limit } : r.query === SKIP ? { offset: r.variables.offset } : r.query === ANONYMOUS || (r.query === TWO_OPERATIONS && r.operationName !== 'B') ? undefined : { id: r.variables.id },
      operationName: r.query === TWO_OPERATIONS || r.query === ANONYMOUS ? r.operationName : undefined,
    }));
    // Values written into the text (literal-hoisting.ts): each text is a document of its own, its shape shared.
    const literal = fc.oneof(fc.constantFrom('inst-a', 'inst-b', 'run-3', 'missing', 'run-\\u0033', 'a"b'), fc.string({ maxLength: 6 }));
    const inlineShaped = fc.record({
      limit: fc.integer({ min: -1, max: 25 }),
      status: fc.constantFrom('COMPLETED', 'FAULTED', 'RUNNING', 'NOPE'),
      id: literal,
      name: literal,
      which: fc.integer({ min: 0, max: 2 }),
    }).map((v) => ({
      query: [
        `{ getWorkflowInstances(limit: ${v.limit}, filter: {status: {in: [${v.status}, COMPLETED]}, name: {ne: ${JSON.stringify(v.name)}}}) { id status } }`,
        `query I { getWorkflowInstance(id: ${JSON.stringify(v.id)}) { id name taskExecutions { id } } }`,
        `{ a: getWorkflowInstance(id: ${v.limit}) { id } b: getWorkflowInstances(offset: ${v.limit}, limit: 3, orderBy: {name: DESC, id: ASC}) { id } }`,
      ][v.which] as string,
      operationName: undefined, variables: undefined, extra: undefined, indent: 0, accept: undefined, contentType: 'application/json', path: '/graphql',
    }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(request, hotShaped, inlineShaped), async (r) => {
        const payload: Record<string, unknown> = { query: r.query, ...r.extra };
        if (r.operationName !== undefined) payload['operationName'] = r.operationName;
        if (r.variables !== undefined) payload['variables'] = r.variables;
        const body = JSON.stringify(payload, null, r.indent);
        const headers: Record<string, string> = { 'content-type': r.contentType, ...(r.accept === undefined ? {} : { accept: r.accept }) };
        const [a, b] = [await send(hot.port, headers, body, r.path), await send(oracle.port, headers, body, r.path)];
        expect(visible(a)).toEqual(visible(b));
      }),
      { numRuns: 400 },
    );
    // The run above exercised both sides of the hot path.
    expect(hotRequestStats.answered - before.answered).toBeGreaterThan(10);
    expect(hotRequestStats.handedToYoga - before.handedToYoga).toBeGreaterThan(10);
    // Every row a request held of GRAPHQL_MAX_COST_IN_FLIGHT was given back.
    const metrics = await new Promise<string>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: hot.port, path: '/q/metrics', agent: false }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve(text));
      }).on('error', reject).end();
    });
    expect(metrics).toMatch(/^workflow_index_cost_rows\{state="in_flight"[^}]*\} 0$/m);
  });

  it("a hot answer's top-level fields follow the selection set when the second field's read ends first", async () => {
    // Every other getInstance read ends after the others (a timer: the order of the ends, not a time bound, is what counts).
    let reads = 0;
    const reader = new RecordingReader({ instances, onRead: async (method) => {
      if (method === 'getInstance' && (reads += 1) % 2 === 1) await new Promise((resolve) => setTimeout(resolve, 30));
    } });
    const { port } = await start({}, reader);
    await warm(port);
    const before = hotRequestStats.answered;
    const answer = await send(port, JSON_HEADERS, JSON.stringify({ query: TWO_ROOTS, variables: { id: 'inst-a' } }));
    expect(hotRequestStats.answered - before).toBe(1);
expect(Object.keys(JSON.parse(answer.body).data)).toEqual(['one', 'two', 'list']);
  });

  it('a client that goes away before its body ends leaves the server answering the next request', async () => {
    const { port } = await start();
    await warm(port);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"query":', () => {
          socket.destroy();
        });
      });
      socket.on('error', reject);
      socket.on('close', () => resolve());
    });
    const body = JSON.stringify({ query: ONE, variables: { id: 'inst-b' } });
    const answer = await send(port, JSON_HEADERS, body);
    expect(JSON.parse(answer.body)).toEqual({ data: { getWorkflowInstance: { id: 'inst-b', name: INSTANCE_B.name, status: INSTANCE_B.status, taskExecutions: expect.any(Array) } } });
  });
});

describe('hot requests: what they leave behind', () => {
  it('a hot operation keeps its place among the compiled operations: executed hot, it is not the one dropped', async () => {
    const { port } = await start();
    await warm(port);
    const one = JSON.stringify({ query: ONE, variables: { id: 'inst-a' } });
    const stats = { ...compiledExecutionStats };
    // MAX_COMPILED_OPERATIONS other documents compiled, One answered hot between each: the least recently executed
    // ones are the other warm documents, and then the new ones, never One.
    for (let i = 0; i < MAX_COMPILED_OPERATIONS; i += 1) {
      expect((await send(port, JSON_HEADERS, one)).status).toBe(200);
      const other = JSON.stringify({ query: `query Q${i} { getWorkflowInstance(id: "inst-b") { id } }` });
      for (let k = 0; k < HOT_AFTER; k += 1) expect((await send(port, JSON_HEADERS, other)).status).toBe(200);
    }
    expect(compiledExecutionStats.dropped - stats.dropped).toBeGreaterThan(0);
    const before = hotRequestStats.answered;
    expect((await send(port, JSON_HEADERS, one)).status).toBe(200);
    expect(hotRequestStats.answered - before).toBe(1);
  });

  it('during a backend outage a failing hot request reads the backend twice (the hot attempt, then graphql-js), not three times', async () => {
    let down = false;
    const reader = new RecordingReader({ instances, onRead: () => {
      if (down) throw new BackendUnavailableError('test outage');
    } });
    const { port } = await start({}, reader);
    const oracle = await start({ GRAPHQL_COMPILED_EXECUTION: 'false' }, new RecordingReader({ instances, onRead: () => {
      throw new BackendUnavailableError('test outage');
    } }));
    await warm(port);
    down = true;
    const body = JSON.stringify({ query: ONE, variables: { id: 'inst-a' } });
    const calls = reader.calls.length;
    const answer = await send(port, JSON_HEADERS, body);
    expect(reader.calls.length - calls).toBe(2);
    expect(visible(answer)).toEqual(visible(await send(oracle.port, JSON_HEADERS, body)));
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('hot requests in process (app.fetch)', () => {
  const apps = () => {
    const hot = createApp({ config: testConfig({ HTTP_MAX_BODY_BYTES: '1024' }), reader: new RecordingReader({ instances }) as Reader, logger: new MemoryLog().logger(), backend: 'test' });
    const oracle = createApp({ config: testConfig({ HTTP_MAX_BODY_BYTES: '1024', GRAPHQL_COMPILED_EXECUTION: 'false' }), reader: new RecordingReader({ instances }) as Reader, logger: new MemoryLog().logger(), backend: 'test' });
    return { hot, oracle };
  };
  const post = (body: BodyInit, init: RequestInit = {}) => new Request('http://localhost/graphql', { method: 'POST', headers: JSON_HEADERS, body, ...init, duplex: 'half' } as RequestInit);
  const seen = async (response: Response) => ({ status: response.status, statusText: response.statusText, type: response.headers.get('content-type'), body: await response.text() });

  it('answers as yoga does: hot answers, bodies with invalid UTF-8 within the limit, bodies whose read fails, aborted requests', async () => {
    const { hot, oracle } = apps();
    const one = JSON.stringify({ query: ONE, variables: { id: 'inst-a' } });
    for (let i = 0; i <= HOT_AFTER; i += 1) await hot.fetch(post(one));
    const before = hotRequestStats.answered;
    expect(await seen(await hot.fetch(post(one)))).toEqual(await seen(await oracle.fetch(post(one))));
    expect(hotRequestStats.answered - before).toBe(1);
    // 400 bytes of 0xFF inside the id: 500 bytes on the wire, 1,200 once each is decoded to U+FFFD.
    const prefix = Buffer.from(one.slice(0, one.indexOf('inst-a')));
    const invalid = Buffer.concat([prefix, Buffer.alloc(400, 0xff), Buffer.from(one.slice(one.indexOf('inst-a')))]);
    expect(await seen(await hot.fetch(post(invalid)))).toEqual(await seen(await oracle.fetch(post(invalid))));
    const failing = () => new ReadableStream<Uint8Array>({ pull: (controller) => controller.error(new Error('boom')) });
    expect(await seen(await hot.fetch(post(failing())))).toEqual(await seen(await oracle.fetch(post(failing()))));
    const aborted = () => {
      const controller = new AbortController();
      controller.abort();
      return post(one, { signal: controller.signal });
    };
    expect(await seen(await hot.fetch(aborted()))).toEqual(await seen(await oracle.fetch(aborted())));
  });
});

describe('HotOperations', () => {
  it('forgets every registration of a dropped compiled operation, and only those', () => {
    const hot = new HotOperations();
    const operation = (compiled: object) => ({ compiled, touch: () => undefined, document: { kind: 'Document', definitions: [] }, operation: { kind: 'OperationDefinition', operation: 'query', selectionSet: { kind: 'SelectionSet', selections: [] } }, operationName: null, loggedName: null }) as never;
    const a = {};
    const b = {};
    hot.register('query A { x }', null, operation(a));
    hot.register('query A { x }', 'A', operation(a));
    hot.register('query B { y }', null, operation(b));
    expect(hot.size).toBe(3);
    hot.forget(a as never);
    expect(hot.lookup('query A { x }', null)).toBeUndefined();
    expect(hot.lookup('query A { x }', 'A')).toBeUndefined();
    expect(hot.lookup('query B { y }', null)).toBeDefined();
    expect(hot.size).toBe(1);
  });

  it('holds at most its bound of query texts: one more forgets the earliest registered, the others stay', () => {
    const hot = new HotOperations(2);
    const operation = { compiled: {}, touch: () => undefined, document: { kind: 'Document', definitions: [] }, operation: { kind: 'OperationDefinition', operation: 'query', selectionSet: { kind: 'SelectionSet', selections: [] } }, operationName: null, loggedName: null, values: null } as never;
    hot.register('{ a: x }', null, operation);
    hot.register('{ b: x }', null, operation);
    expect(hot.size).toBe(2);
    hot.register('{ c: x }', null, operation);
    expect(hot.size).toBe(2);
    expect(hot.lookup('{ a: x }', null)).toBeUndefined();
    expect(hot.lookup('{ b: x }', null)).toBeDefined();
    expect(hot.lookup('{ c: x }', null)).toBeDefined();
  });
});
