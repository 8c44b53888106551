// QUERY_TIMEOUT: a read that ran past the backend's time (QueryTimeoutError) is told apart from an unavailable backend,
// with the cost the request was priced at, and is never run a second time by the server itself (the compiled path
// and the hot path answer its first result).
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { HOT_AFTER } from '../src/compiled-execution.js';
import { startHttpServer, type RunningServer } from '../src/http-server.js';
import { BackendUnavailableError, QueryTimeoutError, type Reader } from '../src/reader.js';
import { codes, MemoryLog, postGraphQL, testApp, testConfig } from '@workflow-index/testkit';
import { RecordingReader } from '@workflow-index/testkit';

const LIMIT = { ms: 5000, setting: 'DATABASE_QUERY_TIMEOUT_MS' };
const PAGE = 'query Page($n: Int) { getWorkflowInstances(limit: $n) { id } }';

/** A reader whose list reads fail with `failure()` while `failing` is on. */
function switchableReader(failure: () => Error): { reader: RecordingReader; fail(on: boolean): void } {
  let failing = false;
  const reader = new RecordingReader({
    onRead: (method) => {
      if (failing && method === 'listInstances') throw failure();
    },
  });
  return { reader, fail: (on) => void (failing = on) };
}

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

function post(port: number, body: unknown): Promise<{ status: number; body: { errors?: { message: string; extensions?: Record<string, unknown> }[] } }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as never }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('QUERY_TIMEOUT', () => {
  it('a read past its time answers QUERY_TIMEOUT with the setting, its time and the priced cost, and says not to retry', async () => {
    const { reader, fail } = switchableReader(() => new QueryTimeoutError('statement_timeout', LIMIT));
    const { app, log } = testApp({ reader });
    fail(true);
    const { status, body } = await postGraphQL(app, PAGE, { n: 40 });
    expect(status).toBe(200);
    expect(codes(body)).toEqual(['QUERY_TIMEOUT']);
    const error = body.errors?.[0];
    expect(error?.extensions).toEqual({ code: 'QUERY_TIMEOUT', cost: 40, timeoutMs: 5000 });
    expect(error?.message).toBe(
      'The query ran longer than the backend allows (DATABASE_QUERY_TIMEOUT_MS: 5000 ms) and was stopped. It was priced at 40 rows (GRAPHQL_MAX_COST). ' +
        'It would time out again: narrow it (a time range, fewer in values, JSON tests, patterns or taskExecutions filters) or lower its limit.',
    );
    expect(log.entries.some((e) => e['msg'] === 'query timed out' && e['cost'] === 40)).toBe(true);
  });

  it('an unavailable backend is still SERVICE_UNAVAILABLE', async () => {
    const { reader, fail } = switchableReader(() => new BackendUnavailableError('connection refused'));
    const { app } = testApp({ reader });
    fail(true);
    expect(codes((await postGraphQL(app, PAGE, { n: 1 })).body)).toEqual(['SERVICE_UNAVAILABLE']);
  });

  it('an operation that runs compiled and hot reads once when it times out, and answers QUERY_TIMEOUT', async () => {
    const { reader, fail } = switchableReader(() => new QueryTimeoutError('statement_timeout', LIMIT));
    const config = testConfig({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '0' });
    const log = new MemoryLog();
    const app = createApp({ config, reader: reader as Reader, logger: log.logger(), backend: 'test' });
    const server = await startHttpServer(app, config, log.logger());
    running.push(server);
    // Until it is compiled and hot (answered without yoga).
    for (let i = 0; i <= HOT_AFTER + 1; i += 1) expect((await post(server.httpPort, { query: PAGE, variables: { n: 2 } })).status).toBe(200);
    fail(true);
    for (const n of [3, 4]) {
      const before = reader.callsOf('listInstances').length;
      const { body } = await post(server.httpPort, { query: PAGE, variables: { n } });
      expect(body.errors?.map((e) => e.extensions?.['code'])).toEqual(['QUERY_TIMEOUT']);
      expect(body.errors?.[0]?.extensions?.['cost']).toBe(n);
      expect(reader.callsOf('listInstances').length - before).toBe(1);
    }
  });
});
