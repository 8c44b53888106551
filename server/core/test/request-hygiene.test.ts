// What a request can make the server write and answer: bounded, redacted error logs; a malformed body
// answered without echoing it; gzip request bodies; OPTIONS that advertises only working methods; a CSRF
// refusal that says what to send.
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import { LOG_QUERY_MAX_CHARS, LOG_VARIABLES_MAX_CHARS, REDACTED, queryExcerpt, variablesExcerpt } from '../src/log-excerpt.js';
import type { Reader } from '../src/reader.js';
import { MemoryLog, postGraphQL, testApp, testConfig } from '@workflow-index/testkit';
import { RecordingReader } from '@workflow-index/testkit';

const failingReader = () =>
  new RecordingReader({
    onRead: () => {
      throw new Error('relation "workflow_index.nope" does not exist');
    },
  });

function post(app: ReturnType<typeof testApp>['app'], body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  return app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }));
}

describe('error logs', () => {
  it('ten 1 MB requests that fail write a bounded excerpt each, not their variables', async () => {
    const { app, log } = testApp({ reader: failingReader() });
    const query = 'query Big($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }';
    const huge = 'x'.repeat(1_000_000);
    for (let i = 0; i < 10; i++) {
      const { body } = await postGraphQL(app, query, { f: { name: { in: [huge] } } }, {});
      expect(body.errors?.[0]?.extensions?.['code']).toBe('INTERNAL_SERVER_ERROR');
    }
    const errors = log.entries.filter((e) => e['level'] === 'error');
    expect(errors).toHaveLength(10);
    const written = JSON.stringify(log.entries).length;
    expect(written).toBeLessThan(10 * 8 * 1024);
    expect(errors[0]).toMatchObject({
      msg: 'unexpected error while executing a GraphQL operation',
      operationName: 'Big',
      query,
      variables: { f: { name: { in: [`${'x'.repeat(100)}…[999900 more characters]`] } } },
    });
  });

  it('variablesExcerpt: cuts strings, lists, objects and depth, redacts secret-named keys, falls back to names and size', () => {
    expect(variablesExcerpt({ f: { name: 'a' }, token: 'abc', auth: { password: { eq: 'p' }, apiKey: 1 } })).toEqual({
      f: { name: 'a' },
      token: REDACTED,
      auth: { password: REDACTED, apiKey: REDACTED },
    });
    expect(variablesExcerpt({ l: Array.from({ length: 12 }, (_, i) => i) })).toEqual({ l: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, '…[2 more items]'] });
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20; i++) deep = { not: deep };
    expect(JSON.stringify(variablesExcerpt({ f: deep }))).toBe(`{"f":${'{"not":'.repeat(7)}"{…}"${'}'.repeat(8)}`);
    const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`v${i}`, 'y'.repeat(150)]));
    const fallback = variablesExcerpt(wide) as Record<string, { names: string[]; characters: number }>;
    expect(fallback['[excerpt too large]']?.names).toHaveLength(20);
    expect(fallback['[excerpt too large]']?.characters).toBeGreaterThan(LOG_VARIABLES_MAX_CHARS);
    expect(variablesExcerpt(undefined)).toBeNull();
    expect(queryExcerpt(`{ ${'a'.repeat(10_000)} }`)?.length).toBe(LOG_QUERY_MAX_CHARS + '…[5908 more characters]'.length);
  });
});

describe('request bodies', () => {
  it('malformed JSON: 400 naming the problem and position, without echoing the body (response or log)', async () => {
    const { app, log } = testApp();
    const secret = `{"query": "{ __typename }", "variables": {"f": "${'s'.repeat(5000)}`;
    const response = await post(app, secret);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errors: [{ message: 'POST body sent invalid JSON: Unterminated string in JSON at position 5048 (line 1 column 5049).', extensions: { code: 'BAD_REQUEST' } }] });
    expect(JSON.stringify(log.entries)).not.toContain('sssss');
    const token = await post(app, 'hello');
    expect(await token.json()).toEqual({ errors: [{ message: "POST body sent invalid JSON: Unexpected token 'h'.", extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('Content-Encoding: gzip bodies are decompressed and answered', async () => {
    const { app } = testApp();
    const body = gzipSync(JSON.stringify({ query: '{ getWorkflowInstance(id: "inst-a") { id } }' }));
    const response = await post(app, new Uint8Array(body), { 'content-encoding': 'gzip' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { getWorkflowInstance: { id: 'inst-a' } } });
  });

  it('HTTP_MAX_BODY_BYTES applies to the decompressed size: a 3 KB body that gzips to 60 bytes is 413', async () => {
    const { app, reader } = testApp({ env: { HTTP_MAX_BODY_BYTES: '2048' } });
    const body = gzipSync(JSON.stringify({ query: `{ getWorkflowInstances { id } } # ${' '.repeat(3000)}` }));
    expect(body.byteLength).toBeLessThan(100);
    const response = await post(app, new Uint8Array(body), { 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] });
    expect(reader.calls).toEqual([]);
  });

  it('corrupt gzip is 400; another encoding is 415 saying what to send', async () => {
    const { app } = testApp();
    const corrupt = await post(app, 'not gzip at all', { 'content-encoding': 'gzip' });
    expect(corrupt.status).toBe(400);
    expect(await corrupt.json()).toEqual({ errors: [{ message: 'The request body is not valid gzip data (Content-Encoding: gzip).', extensions: { code: 'BAD_REQUEST' } }] });
    const br = await post(app, 'whatever', { 'content-encoding': 'br' });
    expect(br.status).toBe(415);
    expect(await br.json()).toEqual({ errors: [{ message: 'Content-Encoding "br" is not supported: send the body uncompressed or with Content-Encoding: gzip.', extensions: { code: 'BAD_REQUEST' } }] });
  });

  describe('over node:http (the framed-body path)', () => {
    const running: RunningServer[] = [];
    afterEach(async () => {
      await Promise.all(running.splice(0).map((r) => r.close()));
    });

    it('gzip bodies with a Content-Length are decompressed and limited by their decompressed size too', async () => {
      const config = testConfig({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', HTTP_MAX_BODY_BYTES: '2048' });
      const log = new MemoryLog();
      const app = createApp({ config, reader: new RecordingReader() as Reader, logger: log.logger(), backend: 'test' });
      const server = await startHttpServer(app, config, log.logger());
      running.push(server);
      const send = (body: Buffer) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port: server.httpPort, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.byteLength) }, agent: false },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      const ok = await send(gzipSync(JSON.stringify({ query: '{ getWorkflowInstance(id: "inst-a") { id } }' })));
      expect(ok).toEqual({ status: 200, body: '{"data":{"getWorkflowInstance":{"id":"inst-a"}}}' });
      const bomb = await send(gzipSync(JSON.stringify({ query: `{ __typename } # ${' '.repeat(100_000)}` })));
      expect(bomb.status).toBe(413);
    });
  });
});

describe('OPTIONS advertises only methods that work', () => {
  const options = (app: ReturnType<typeof testApp>['app'], path: string, headers: Record<string, string> = {}) => app.fetch(new Request(`http://localhost${path}`, { method: 'OPTIONS', headers }));

  it('POST on /graphql; GET and HEAD elsewhere; 404 for paths that do not exist here', async () => {
    const { app } = testApp();
    expect((await options(app, '/graphql')).headers.get('allow')).toBe('POST, OPTIONS');
    for (const path of ['/q/health', '/q/health/ready', '/q/metrics', '/graphql/schema.graphql', '/q/graphql-ui']) {
      const response = await options(app, path);
      expect([path, response.status, response.headers.get('allow')]).toEqual([path, 204, 'GET, HEAD, OPTIONS']);
    }
    expect((await options(app, '/docs')).status).toBe(404);
    expect((await options(app, '/nope')).status).toBe(404);
    const closed = testApp({ env: { GRAPHQL_INTROSPECTION: 'NO_INTROSPECTION_OR_QUERY' } });
    expect((await options(closed.app, '/graphql/schema.graphql')).status).toBe(404);
    // Every advertised method is answered by something other than 405.
    for (const path of ['/q/health/live', '/q/metrics']) {
      for (const method of ['GET', 'HEAD']) expect((await app.fetch(new Request(`http://localhost${path}`, { method }))).status).not.toBe(405);
      const put = await app.fetch(new Request(`http://localhost${path}`, { method: 'PUT' }));
      expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
    }
  });

  it('a CORS preflight allows the methods of the path it asks about', async () => {
    const { app } = testApp({ env: { CORS_ENABLED: 'true', CORS_ORIGINS: 'https://a.example' } });
    const preflight = (path: string) => options(app, path, { origin: 'https://a.example', 'access-control-request-method': 'GET' });
    expect((await preflight('/graphql')).headers.get('access-control-allow-methods')).toBe('POST');
    expect((await preflight('/q/health')).headers.get('access-control-allow-methods')).toBe('GET, HEAD');
  });
});

describe('CSRF refusal', () => {
  it('names the content type and the headers that pass; each of them does', async () => {
    const { app } = testApp();
    const query = '{"query":"{ __typename }"}';
    const refused = await post(app, query, { 'content-type': 'text/plain' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      errors: [
        {
          message:
            'Refused as a possible cross-site request forgery: send the request with Content-Type: application/json, or add one of the headers x-graphql-yoga-csrf, x-requested-with, apollo-require-preflight (any value).',
          extensions: { code: 'CSRF_HEADER_REQUIRED' },
        },
      ],
    });
    expect((await post(app, query, { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(403);
    expect((await post(app, query)).status).toBe(200);
    for (const header of ['x-graphql-yoga-csrf', 'x-requested-with', 'apollo-require-preflight']) {
      // Past the CSRF check, text/plain is not a GraphQL body: 415 from yoga, not 403.
      expect((await post(app, query, { 'content-type': 'text/plain', [header]: '1' })).status).toBe(415);
    }
  });
});
