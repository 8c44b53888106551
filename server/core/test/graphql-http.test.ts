// The app through app.fetch (in-process, no sockets): GraphQL semantics, limits, errors,
// introspection modes, CORS, health, metrics, logs.
import { readFileSync } from 'node:fs';
import { buildSchema, getIntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { BackendUnavailableError } from '../src/reader.js';
import { codes, get, postGraphQL, testApp } from '@workflow-index/testkit';
import { DEFAULT_STATS, INSTANCE_A, RecordingReader, TASK_A0 } from '@workflow-index/testkit';

/** `__type { fields { type { ofType … { name } } } }` nested to exactly `depth` field levels. */
function deepIntrospection(depth: number): string {
  const ofTypes = depth - 4;
  return `__type(name: "Query") { fields { type { ${'ofType { '.repeat(ofTypes)}name${' }'.repeat(ofTypes)} } } }`;
}

describe('queries', () => {
  it('unknown ids: null for single lookups, [] for the tasks of an instance, without errors', async () => {
    const { app } = testApp();
    const { body } = await postGraphQL(app, '{ getWorkflowInstance(id: "nope") { id } getTaskExecution(id: "nope:do/0/x") { id } getTaskExecutionsByWorkflowInstance(workflowInstanceId: "nope") { id } }');
    expect(body).toEqual({ data: { getWorkflowInstance: null, getTaskExecution: null, getTaskExecutionsByWorkflowInstance: [] } });
  });

  it('serves records: times trimmed (never rounded), payloads as JSON text, errors, deprecated errorMessage', async () => {
    const { app } = testApp();
    const { body } = await postGraphQL(
      app,
      `{
        getWorkflowInstances { id name namespace version status startDate endDate lastUpdate inputData outputData error { type title detail status instance } }
        getTaskExecutionsByWorkflowInstance(workflowInstanceId: "inst-b") { id workflowInstanceId taskName taskPosition status startDate endDate inputData outputData error { title detail status } errorMessage }
      }`,
    );
    expect(body).toEqual({
      data: {
        getWorkflowInstances: [
          {
            id: 'inst-a',
            name: 'order-intake',
            namespace: 'com.acme.orders',
            version: '1.0.0',
            status: 'COMPLETED',
            startDate: '2026-05-12T09:14:03.512378Z',
            endDate: '2026-05-12T09:14:03.51595Z',
            lastUpdate: '2026-05-12T09:14:03.51595Z',
            inputData: '{"orderId":"ORD-1"}',
            outputData: '{"ok":true}',
            error: null,
          },
          {
            id: 'inst-b',
            name: 'payment-capture',
            namespace: 'com.acme.billing',
            version: '2.1.0',
            status: 'FAULTED',
            startDate: '2026-04-27T18:55:29.5Z',
            endDate: '2026-04-27T18:55:00Z',
            lastUpdate: null,
            inputData: null,
            outputData: null,
            error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', title: 'Service Unavailable', detail: 'psp timeout', status: 503, instance: 'do/1/chargeCard' },
          },
        ],
        getTaskExecutionsByWorkflowInstance: [
          {
            id: 'inst-b:do/1/chargeCard',
            workflowInstanceId: 'inst-b',
            taskName: 'chargeCard',
            taskPosition: 'do/1/chargeCard',
            status: 'FAULTED',
            startDate: '2026-05-12T09:14:03.516046Z',
            endDate: '2026-05-12T09:14:08.519458Z',
            inputData: null,
            outputData: null,
            error: { title: null, detail: 'card declined', status: 402 },
            errorMessage: 'card declined',
          },
        ],
      },
    });
  });

  it('errorMessage is the title when there is one; a FAILED status from a reader is served as FAULTED', async () => {
    const reader = new RecordingReader({ tasks: [{ ...TASK_A0, status: 'FAILED', error: { type: null, title: 'Boom', detail: 'details', status: 500, instance: null } }] });
    const { app } = testApp({ reader });
    const { body } = await postGraphQL(app, '{ getTaskExecution(id: "inst-a:do/0/validateOrder") { status errorMessage } }');
    expect(body).toEqual({ data: { getTaskExecution: { status: 'FAULTED', errorMessage: 'Boom' } } });
  });

  it('loads the tasks of a whole page of instances with one tasksOfInstances call (DataLoader)', async () => {
    const instances = Array.from({ length: 25 }, (_, i) => ({ ...INSTANCE_A, id: `inst-${i}` }));
    const tasks = instances.map((instance) => ({ ...TASK_A0, id: `${instance.id}:do/0/validateOrder`, workflowInstanceId: instance.id }));
    const reader = new RecordingReader({ instances, tasks });
    const { app } = testApp({ reader });
    const { body } = await postGraphQL(app, '{ getWorkflowInstances(limit: 25) { id taskExecutions { id status } again: taskExecutions { id } } }');
    const page = body.data?.['getWorkflowInstances'] as { id: string; taskExecutions: { id: string }[] }[];
    expect(page).toHaveLength(25);
    expect(page[7]?.taskExecutions).toEqual([{ id: 'inst-7:do/0/validateOrder', status: 'COMPLETED' }]);
    expect(reader.callsOf('tasksOfInstances')).toEqual([{ method: 'tasksOfInstances', ids: instances.map((i) => i.id), payloads: false }]);
  });
});

describe('GET /graphql', () => {
  it('is refused with 405 and a clear message; nothing is executed', async () => {
    const { app, reader } = testApp();
    const response = await get(app, '/graphql?query=%7BgetWorkflowInstances%7Bid%7D%7D');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await response.json()).toEqual({
      errors: [
        {
          message:
            'GET is not supported on /graphql: send the query with POST and Content-Type: application/json (body {"query": …, "variables": …}). The interactive UI is at /q/graphql-ui.',
          extensions: { code: 'METHOD_NOT_ALLOWED' },
        },
      ],
    });
    expect(reader.calls).toEqual([]);
  });
});

describe('query limits', () => {
  it('depth 15 runs; depth 16 is rejected with MAX_DEPTH_EXCEEDED before anything executes', async () => {
    const { app, reader } = testApp();
    const ok = await postGraphQL(app, `{ getWorkflowInstances { id } ${deepIntrospection(15)} }`);
    expect(ok.body.errors).toBeUndefined();
    expect(reader.callsOf('listInstances')).toHaveLength(1);

    const deep = await postGraphQL(app, `{ getWorkflowInstances { id } ${deepIntrospection(16)} }`);
    expect(deep.body).toEqual({ errors: [{ message: 'Query depth limit of 15 exceeded, found 16.', extensions: { code: 'MAX_DEPTH_EXCEEDED' } }] });
    expect(reader.callsOf('listInstances')).toHaveLength(1);
  });

  it('introspection is depth-limited too: a 35-deep __schema query is rejected, the standard introspection query passes', async () => {
    const { app } = testApp();
    const ofType = (n: number): string => (n === 0 ? 'name' : `ofType { ${ofType(n - 1)} }`);
    const deep = await postGraphQL(app, `{ __schema { types { fields { type { ${ofType(31)} } } } } }`);
    expect(codes(deep.body)).toEqual(['MAX_DEPTH_EXCEEDED']);
    const standard = await postGraphQL(app, getIntrospectionQuery());
    expect(standard.body.errors).toBeUndefined();
    expect((standard.body.data as { __schema: { queryType: { name: string } } }).__schema.queryType.name).toBe('Query');
  });

  it('depth counts fields, not fragment spreads; the limit is configurable', async () => {
    const { app, reader } = testApp({ env: { GRAPHQL_MAX_DEPTH: '3' } });
    const ok = await postGraphQL(app, '{ getWorkflowInstances { ...A } } fragment A on WorkflowInstance { ...B } fragment B on WorkflowInstance { taskExecutions { id } }');
    expect(ok.body.errors).toBeUndefined();
    const deep = await postGraphQL(app, '{ getWorkflowInstances { ...B } } fragment B on WorkflowInstance { taskExecutions { error { title } } }');
    expect(codes(deep.body)).toEqual(['MAX_DEPTH_EXCEEDED']);
    expect(deep.body.errors?.[0]?.message).toBe('Query depth limit of 3 exceeded, found 4.');
    expect(reader.callsOf('listInstances')).toHaveLength(1);
  });

  it('aliases: 30 run, 31 are rejected with MAX_ALIASES_EXCEEDED', async () => {
    const { app, reader } = testApp();
    const aliases = (n: number): string => `{ ${Array.from({ length: n }, (_, i) => `a${i}: getWorkflowInstance(id: "inst-a") { id }`).join(' ')} }`;
    expect((await postGraphQL(app, aliases(30))).body.errors).toBeUndefined();
    expect(reader.callsOf('getInstance')).toHaveLength(30);
    const tooMany = await postGraphQL(app, aliases(31));
    expect(tooMany.body).toEqual({ errors: [{ message: 'Aliases limit of 30 exceeded, found 31.', extensions: { code: 'MAX_ALIASES_EXCEEDED' } }] });
    expect(reader.callsOf('getInstance')).toHaveLength(30);
  });

  it('tokens: a document above GRAPHQL_MAX_TOKENS is rejected with MAX_TOKENS_EXCEEDED while parsing', async () => {
    const { app, reader } = testApp();
    // 6 tokens per field: name ( id : "…" ) … plus braces.
    const big = `{ getWorkflowInstance(id: "x") { ${'id '.repeat(5000)} } }`;
    const { body } = await postGraphQL(app, big);
    expect(body).toEqual({ errors: [{ message: 'Token limit of 5000 exceeded.', extensions: { code: 'MAX_TOKENS_EXCEEDED' } }] });
    expect(reader.calls).toEqual([]);
    // `{ getWorkflowInstance ( id : "x" ) { id } }` is 11 tokens.
    const small = testApp({ env: { GRAPHQL_MAX_TOKENS: '11' } });
    expect(codes((await postGraphQL(small.app, '{ getWorkflowInstance(id: "x") { id name } }')).body)).toEqual(['MAX_TOKENS_EXCEEDED']);
    expect((await postGraphQL(small.app, '{ getWorkflowInstance(id: "x") { id } }')).body.errors).toBeUndefined();
  });

  it('directives: more than 50 are rejected with MAX_DIRECTIVES_EXCEEDED', async () => {
    const { app } = testApp();
    const { body } = await postGraphQL(app, `{ getWorkflowInstance(id: "x") { ${'id @include(if: true) '.repeat(51)} } }`);
    expect(body).toEqual({ errors: [{ message: 'Directives limit of 50 exceeded, found 51.', extensions: { code: 'MAX_DIRECTIVES_EXCEEDED' } }] });
  });

  it('request bodies above HTTP_MAX_BODY_BYTES are refused with 413', async () => {
    const { app, reader } = testApp({ env: { HTTP_MAX_BODY_BYTES: '2048' } });
    const { status, body } = await postGraphQL(app, `{ getWorkflowInstances { id } } # ${'x'.repeat(3000)}`);
    expect(status).toBe(413);
    expect(codes(body)).toEqual(['REQUEST_ENTITY_TOO_LARGE']);
    expect(reader.calls).toEqual([]);
  });

  it('CSRF: a simple (non-preflighted) POST without a CSRF header is refused with 403', async () => {
    const { app, reader } = testApp();
    const response = await app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"query":"{ getWorkflowInstances { id } }"}' }));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ errors: [{ message: 'Refused as a possible cross-site request forgery: send the request with Content-Type: application/json, or add one of the headers x-graphql-yoga-csrf, x-requested-with, apollo-require-preflight (any value).', extensions: { code: 'CSRF_HEADER_REQUIRED' } }] });
    expect(reader.calls).toEqual([]);
  });
});

describe('introspection modes', () => {
  const schemaQuery = '{ __schema { queryType { name } } }';
  const typeQuery = '{ __type(name: "WorkflowInstance") { name } }';

  it('DEFAULT: introspection, SDL and UI available', async () => {
    const { app } = testApp();
    expect((await postGraphQL(app, schemaQuery)).body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    expect((await postGraphQL(app, typeQuery)).body).toEqual({ data: { __type: { name: 'WorkflowInstance' } } });
    expect((await get(app, '/graphql/schema.graphql')).status).toBe(200);
    expect((await get(app, '/q/graphql-ui')).status).toBe(200);
  });

  it('NO_INTROSPECTION: __schema and __type rejected, __typename fine, SDL and UI still served', async () => {
    const { app } = testApp({ env: { GRAPHQL_INTROSPECTION: 'NO_INTROSPECTION' } });
    const schema = await postGraphQL(app, schemaQuery);
    expect(schema.body.errors?.[0]).toEqual({
      message: 'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
      locations: [{ line: 1, column: 3 }],
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(schema.body.data).toBeUndefined();
    const type = await postGraphQL(app, typeQuery);
    expect(type.body.errors?.[0]?.message).toBe('GraphQL introspection has been disabled, but the requested query contained the field "__type".');
    expect((await postGraphQL(app, '{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
    expect((await get(app, '/graphql/schema.graphql')).status).toBe(200);
    expect((await get(app, '/q/graphql-ui')).status).toBe(200);
  });

  it('NO_INTROSPECTION hides field suggestions that would leak the schema', async () => {
    const { app } = testApp({ env: { GRAPHQL_INTROSPECTION: 'NO_INTROSPECTION' } });
    expect((await postGraphQL(app, '{ getWorkflowInstances { naem } }')).body.errors?.[0]?.message).toBe('Cannot query field "naem" on type "WorkflowInstance". [Suggestion hidden]');
    const open = testApp();
    expect((await postGraphQL(open.app, '{ getWorkflowInstances { naem } }')).body.errors?.[0]?.message).toBe('Cannot query field "naem" on type "WorkflowInstance". Did you mean "name"?');
  });

  it('NO_INTROSPECTION_OR_QUERY: additionally 404 for the SDL, the UI and /docs', async () => {
    const { app } = testApp({ env: { GRAPHQL_INTROSPECTION: 'NO_INTROSPECTION_OR_QUERY', NODE_ENV: 'development' } });
    expect(codes((await postGraphQL(app, typeQuery)).body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect((await get(app, '/graphql/schema.graphql')).status).toBe(404);
    expect((await get(app, '/q/graphql-ui')).status).toBe(404);
    expect((await get(app, '/docs')).status).toBe(404);
    expect((await postGraphQL(app, '{ getWorkflowInstance(id: "inst-a") { id } }')).body).toEqual({ data: { getWorkflowInstance: { id: 'inst-a' } } });
  });
});

describe('UI, SDL, docs', () => {
  it('/q/graphql-ui is GraphiQL pointed at /graphql: a small page naming hashed files served from here (works offline)', async () => {
    const { app } = testApp();
    const response = await get(app, '/q/graphql-ui');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const html = await response.text();
    expect(html.length).toBeLessThan(20_000);
    expect(html).toContain('"endpoint":"/graphql"');
    expect(html).toContain('<title>Workflow Index — GraphQL</title>');
    // No external script, stylesheet, icon or font: every src/href is a file of this server.
    expect(html.match(/<(script|link|img)\b[^>]*\b(src|href)\s*=\s*["']?(https?:)?\/\//gi)).toBeNull();
    expect(html).toContain('YogaGraphiQL.renderYogaGraphiQL(');
    const paths = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(paths.map((p) => p.replace(/^\/q\/graphql-ui\/assets\/[\w-]{16}\./, '*.')).sort()).toEqual(['*.css', '*.ico', '*.js']);
    const files = await Promise.all(paths.map(async (path) => ({ path, response: await get(app, path) })));
    for (const { response: file } of files) {
      expect(file.status).toBe(200);
      expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    const bodies = await Promise.all(files.map(async ({ path, response: file }) => ({ path, type: file.headers.get('content-type'), text: await file.text() })));
    const script = bodies.find((b) => b.path.endsWith('.js'));
    expect(script?.type).toBe('text/javascript; charset=utf-8');
    expect(script?.text).toContain('YogaGraphiQL');
    const style = bodies.find((b) => b.path.endsWith('.css'));
    expect(style?.type).toBe('text/css; charset=utf-8');
    expect(style?.text.match(/@import\s+url\(\s*["']?https?:/gi)).toBeNull();
    expect((await get(app, '/q/graphql-ui/assets/AAAAAAAAAAAAAAAA.js')).status).toBe(404);
  });

  it('/graphql/schema.graphql serves the SDL of the contract', async () => {
    const { app } = testApp();
    const response = await get(app, '/graphql/schema.graphql');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const sdl = await response.text();
    expect(sdl).toBe(readFileSync(new URL('../src/schema.graphql', import.meta.url), 'utf8'));
    const schema = buildSchema(sdl);
    expect(Object.keys(schema.getQueryType()?.getFields() ?? {})).toEqual([
      'getWorkflowInstances',
      'getWorkflowInstance',
      'getTaskExecutions',
      'getTaskExecution',
      'getTaskExecutionsByWorkflowInstance',
      'countWorkflowInstances',
      'countTaskExecutions',
      'workflowInstanceStatusCounts',
      'indexStatus',
      'workflowStats',
      'topErrors',
      'topFailingTasks',
    ]);
    for (const name of ['WorkflowInstanceFilterInput', 'TaskExecutionFilterInput', 'StringFilterInput', 'DateTimeFilterInput', 'DateTimeRangeInput', 'IntFilterInput', 'WorkflowInstanceStatusFilterInput', 'TaskStatusFilterInput', 'ErrorFilterInput', 'JsonFilterInput', 'JsonFieldFilterInput', 'WorkflowInstanceOrderByInput', 'TaskExecutionOrderByInput', 'Error', 'WorkflowInstanceError', 'OrderBy', 'WorkflowInstanceStatus', 'DateTime']) {
      expect(schema.getType(name), name).toBeDefined();
    }
  });

  it('/docs is a documentation page in development mode and 404 in production', async () => {
    const dev = testApp({ env: { NODE_ENV: 'development' } });
    const response = await get(dev.app, '/docs');
    expect(response.status).toBe(200);
    const html = await response.text();
    for (const section of ['id="operations"', 'id="filters"', 'id="shorthand"', 'id="ordering"', 'id="pagination"', 'id="errors"', 'id="configuration"', 'id="type-WorkflowInstance"', 'GRAPHQL_MAX_DEPTH', 'MAX_DEPTH_EXCEEDED', 'GRAPHQL_MAX_COST', 'HTTP_MAX_REQUESTS_PER_CLIENT', 'TOO_MANY_REQUESTS', 'CSRF_HEADER_REQUIRED', 'REQUEST_TIMEOUT', 'HTTP_BODY_TIMEOUT_MS', 'HTTP_HEADERS_TIMEOUT_MS']) {
      expect(html).toContain(section);
    }
    expect(html.match(/(src|href)\s*=\s*["']https?:/gi)).toBeNull();
    expect((await get(testApp().app, '/docs')).status).toBe(404);
  });
});

describe('CORS', () => {
  const preflight = (origin: string) =>
    new Request('http://localhost/graphql', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });

  it('development default: http://localhost:3000 gets a preflight answer and Access-Control-Allow-Origin', async () => {
    const { app } = testApp({ env: { NODE_ENV: 'development' } });
    const response = await app.fetch(preflight('http://localhost:3000'));
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    // Only what works on /graphql (CONTRACT.md §1 listed PUT and DELETE, which nothing here serves).
    expect(response.headers.get('access-control-allow-methods')).toBe('POST');
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization');
    const post = await postGraphQL(app, '{ __typename }', undefined, { origin: 'http://localhost:3000' });
    expect(post.response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(post.response.headers.get('access-control-expose-headers')).toBe('X-Request-Id');
    expect(post.response.headers.get('vary')).toContain('Origin');
  });

  it('an origin not configured gets no Access-Control-Allow-Origin (never echoed)', async () => {
    const { app } = testApp({ env: { NODE_ENV: 'development' } });
    const response = await app.fetch(preflight('https://evil.example'));
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const post = await postGraphQL(app, '{ __typename }', undefined, { origin: 'https://evil.example' });
    expect(post.response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('production default: off for every origin', async () => {
    const { app } = testApp();
    const response = await app.fetch(preflight('http://localhost:3000'));
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const post = await postGraphQL(app, '{ __typename }', undefined, { origin: 'http://localhost:3000' });
    expect(post.response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('configured origins only; * answers * without echoing', async () => {
    const { app } = testApp({ env: { CORS_ENABLED: 'true', CORS_ORIGINS: 'https://a.example, https://b.example:8443' } });
    expect((await app.fetch(preflight('https://b.example:8443'))).headers.get('access-control-allow-origin')).toBe('https://b.example:8443');
    expect((await app.fetch(preflight('https://b.example'))).headers.get('access-control-allow-origin')).toBeNull();
    const star = testApp({ env: { CORS_ENABLED: 'true', CORS_ORIGINS: '*' } });
    expect((await star.app.fetch(preflight('https://anything.example'))).headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('health', () => {
  it('/q/health/live is UP without asking the backend', async () => {
    const { app, reader } = testApp({ reader: new RecordingReader({ ping: () => Promise.reject(new BackendUnavailableError('down')) }) });
    const response = await get(app, '/q/health/live');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; checks: { name: string; status: string }[] };
    expect(body.status).toBe('UP');
    expect(body.checks.map((c) => [c.name, c.status])).toEqual([['process', 'UP']]);
    expect(reader.callsOf('ping')).toEqual([]);
  });

  it('/q/health/ready is UP (200) with backend and disk checks', async () => {
    const { app } = testApp();
    const response = await get(app, '/q/health/ready');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; checks: { name: string; status: string; data: Record<string, unknown> }[] };
    expect(body.status).toBe('UP');
    expect(body.checks.map((c) => [c.name, c.status])).toEqual([
      ['backend', 'UP'],
      ['disk-space', 'UP'],
    ]);
    expect(body.checks[0]?.data['backend']).toBe('test');
    expect(body.checks[1]?.data['path']).toBe('/');
    expect(body.checks[1]?.data['thresholdBytes']).toBe(1);
  });

  it('/q/health/ready is DOWN (503) when ping rejects with BackendUnavailableError; /q/health too', async () => {
    const reader = new RecordingReader({ ping: () => Promise.reject(new BackendUnavailableError('connect ECONNREFUSED 127.0.0.1:5432')) });
    const { app } = testApp({ reader });
    const response = await get(app, '/q/health/ready');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      status: 'DOWN',
      checks: [
        { name: 'backend', status: 'DOWN', data: { backend: 'test', error: 'connect ECONNREFUSED 127.0.0.1:5432' } },
        { name: 'disk-space', status: 'UP' },
      ],
    });
    const all = await get(app, '/q/health');
    expect(all.status).toBe(503);
    expect(((await all.json()) as { checks: { name: string }[] }).checks.map((c) => c.name)).toEqual(['process', 'backend', 'disk-space']);
  });

  it('a ping that hangs is bounded by HEALTH_BACKEND_TIMEOUT_MS', async () => {
    const reader = new RecordingReader({ ping: () => new Promise<void>(() => undefined) });
    const { app } = testApp({ reader, env: { HEALTH_BACKEND_TIMEOUT_MS: '50' } });
    const started = Date.now();
    const response = await get(app, '/q/health/ready');
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await response.json()).toMatchObject({ checks: [{ name: 'backend', status: 'DOWN', data: { error: 'test ping did not answer within 300 ms' } }, { name: 'disk-space' }] });
  });

  it('DOWN when free disk space is below the threshold, or the path is missing', async () => {
    const full = testApp({ env: { HEALTH_DISK_MIN_FREE_BYTES: String(Number.MAX_SAFE_INTEGER) } });
    const response = await get(full.app, '/q/health/ready');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: 'DOWN', checks: [{ name: 'backend', status: 'UP' }, { name: 'disk-space', status: 'DOWN' }] });
    const missing = testApp({ env: { HEALTH_DISK_PATH: '/nonexistent/path/for/test' } });
    expect((await get(missing.app, '/q/health/ready')).status).toBe(503);
  });

  it('DOWN once draining for shutdown, while liveness stays UP', async () => {
    const { app } = testApp();
    app.startDraining();
    const ready = await get(app, '/q/health/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: [{ name: 'backend', status: 'UP' }, { name: 'disk-space', status: 'UP' }, { name: 'shutdown', status: 'DOWN' }] });
    expect((await get(app, '/q/health/live')).status).toBe(200);
  });
});

describe('errors', () => {
  it('SERVICE_UNAVAILABLE when the reader throws BackendUnavailableError', async () => {
    const reader = new RecordingReader({
      onRead: () => {
        throw new BackendUnavailableError('connect ECONNREFUSED 127.0.0.1:5432');
      },
    });
    const { app } = testApp({ reader });
    const { body } = await postGraphQL(app, '{ getWorkflowInstances { id } }');
    expect(body).toEqual({
      errors: [{ message: 'The storage backend is unavailable; try again later.', locations: [{ line: 1, column: 3 }], path: ['getWorkflowInstances'], extensions: { code: 'SERVICE_UNAVAILABLE' } }],
      data: null,
    });
  });

  it('SERVICE_UNAVAILABLE also from the batched task loader', async () => {
    const reader = new RecordingReader({
      onRead: (method) => {
        if (method === 'tasksOfInstances') throw new BackendUnavailableError('timeout');
      },
    });
    const { app } = testApp({ reader });
    const { body } = await postGraphQL(app, '{ getTaskExecutionsByWorkflowInstance(workflowInstanceId: "inst-a") { id } }');
    expect(codes(body)).toEqual(['SERVICE_UNAVAILABLE']);
  });

  it('anything else is masked as INTERNAL_SERVER_ERROR and logged at error level with the query and variables', async () => {
    const reader = new RecordingReader({
      onRead: () => {
        throw new Error('relation "workflow_index.secret_table" does not exist');
      },
    });
    const { app, log } = testApp({ reader });
    const query = 'query Broken($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }';
    const { body } = await postGraphQL(app, query, { f: { name: 'order-intake' } });
    expect(body).toEqual({
      errors: [{ message: 'Unexpected error.', locations: [{ line: 1, column: 49 }], path: ['getWorkflowInstances'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      data: null,
    });
    expect(JSON.stringify(body)).not.toContain('secret_table');
    const entry = log.entries.find((e) => e['level'] === 'error');
    expect(entry).toMatchObject({
      msg: 'unexpected error while executing a GraphQL operation',
      operationName: 'Broken',
      query,
      variables: { f: { name: 'order-intake' } },
      path: ['getWorkflowInstances'],
      err: { message: 'relation "workflow_index.secret_table" does not exist' },
    });
  });

  it('parse and validation failures carry codes', async () => {
    const { app } = testApp();
    expect(codes((await postGraphQL(app, '{ getWorkflowInstances { id ')).body)).toEqual(['GRAPHQL_PARSE_FAILED']);
    expect(codes((await postGraphQL(app, '{ nope }')).body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes((await postGraphQL(app, 'query($l: Int) { getWorkflowInstances(limit: $l) { id } }', { l: 'ten' })).body)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('request log', () => {
  it('one entry per request with method, route, status, duration and operation name, without variable values', async () => {
    const { app, log } = testApp();
    await postGraphQL(app, 'query FindOrders($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }', { f: { name: 'very-secret-value' } });
    const entries = log.entries.filter((e) => e['msg'] === 'request');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ level: 'info', method: 'POST', route: '/graphql', status: 200, operationName: 'FindOrders', operationType: 'query' });
    expect(typeof entries[0]?.['durationMs']).toBe('number');
    expect(JSON.stringify(log.entries)).not.toContain('very-secret-value');
  });

  it('probes and scrapes log at debug, unknown paths under the route "other"', async () => {
    const { app, log } = testApp();
    await get(app, '/q/health/live');
    await get(app, '/some/unknown/path');
    expect(log.entries.filter((e) => e['msg'] === 'request').map((e) => [e['level'], e['route'], e['status']])).toEqual([
      ['debug', '/q/health/live', 200],
      ['info', 'other', 404],
    ]);
  });
});

describe('metrics', () => {
  it('exposes the HTTP histogram, GraphQL metrics, pool and ingestion gauges', async () => {
    const { app } = testApp();
    await postGraphQL(app, 'query Ok { getWorkflowInstances { id } }');
    await postGraphQL(app, 'query Bad { getWorkflowInstances(limit: -1) { id } }');
    await get(app, '/q/health/live');
    const response = await get(app, '/q/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    for (const line of [
      'http_server_requests_seconds_count{backend="test",method="POST",uri="/graphql",status="200",outcome="SUCCESS"} 2',
      'http_server_requests_seconds_count{backend="test",method="GET",uri="/q/health/live",status="200",outcome="SUCCESS"} 1',
      'graphql_operation_duration_seconds_count{backend="test",operation_type="query",operation_name="Ok"} 1',
      'graphql_operation_duration_seconds_count{backend="test",operation_type="query",operation_name="Bad"} 1',
      'graphql_errors_total{operation_type="query",operation_name="Bad",code="BAD_USER_INPUT",backend="test"} 1',
      'workflow_index_pool_connections{state="total",backend="test"} 5',
      'workflow_index_pool_connections{state="idle",backend="test"} 4',
      'workflow_index_pool_connections{state="waiting",backend="test"} 0',
      'workflow_index_ingestion_stats_up{backend="test"} 1',
      'workflow_index_raw_events{store="workflow",backend="test"} 40',
      'workflow_index_raw_events{store="task",backend="test"} 38',
      'workflow_index_ingest_errors_total{backend="test"} 2',
      'workflow_index_newest_event_timestamp_seconds{backend="test"} 1778577309.454091',
      'workflow_index_placeholder_instances{backend="test"} 1',
      'workflow_index_instances{backend="test"} 8',
      'workflow_index_task_executions{backend="test"} 27',
    ]) {
      expect(text.split('\n')).toContain(line);
    }
    expect(text).toContain('# TYPE http_server_requests_seconds histogram');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('one ingestionStats call per scrape; a slow backend cannot hang the scrape', async () => {
    let slow = false;
    const reader = new RecordingReader({ ingestionStats: () => (slow ? new Promise(() => undefined) : Promise.resolve(DEFAULT_STATS)) });
    const { app } = testApp({ reader, env: { METRICS_BACKEND_TIMEOUT_MS: '100' } });
    await (await get(app, '/q/metrics')).text();
    expect(reader.callsOf('ingestionStats')).toHaveLength(1);
    slow = true;
    const started = Date.now();
    const text = await (await get(app, '/q/metrics')).text();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(text).toContain('workflow_index_ingestion_stats_up{backend="test"} 0');
    // The last known values stay.
    expect(text).toContain('workflow_index_instances{backend="test"} 8');
  });

  it('no pool gauges for a backend without a pool', async () => {
    const { app } = testApp({ reader: new RecordingReader({ poolStats: null }) });
    const text = await (await get(app, '/q/metrics')).text();
    expect(text).not.toMatch(/^workflow_index_pool_connections\{/m);
  });
});
