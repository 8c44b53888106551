// GET /export/workflow-instances (CONTRACT §9) on both real backends: the export is the runs list — every page of
// getWorkflowInstances with the same filter, in its order, the same fields — in JSONL and CSV (parsed back with a
// parser of the test's own), compressed or not; it refuses bad input before reading, reads one page at a time and
// only when the client takes the last one, stops when the client goes away, says when it was cut short, and shows a
// subject only what its rules grant.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type App, createApp, loadCoreConfig, type Reader } from '@workflow-index/core';
import { MemoryLog, seededRandom, startTestIssuer, type TestIssuer } from '@workflow-index/testkit';
import { createTestNamespace, type TestNamespace } from '@workflow-index/opensearch/testing';
import { describeBoth } from './support/fixtures.js';
import { loadPair, type Pair } from './support/backend-pair.js';
import { countingReader, type ListCalls } from './support/counting-reader.js';
import { exportRequest, listAll, parseExport, type Exported, type Row } from './support/export-client.js';
import { EXPORT_NAMESPACES, exportRunLines } from './support/export-runs.js';

const RUNS = 160;
type Format = 'csv' | 'jsonl';
const FORMATS: readonly Format[] = ['jsonl', 'csv'];

interface Subject {
  readonly app: App;
  readonly stats: ListCalls;
  readonly log: MemoryLog;
}

describeBoth('export of runs as CSV and JSONL (PostgreSQL and OpenSearch)', () => {
  let ns: TestNamespace;
  let pair: Pair | undefined;
  const opened: App[] = [];

  beforeAll(async () => {
    ns = createTestNamespace();
    pair = await loadPair(ns, 'export', exportRunLines(seededRandom(20260514), RUNS), 'wi_export');
  }, 300_000);

  afterAll(async () => {
    for (const app of opened) await app.dispose();
    await pair?.close();
    await ns?.drop();
  });

  const backends = (): { name: string; reader: Reader }[] => [
    { name: 'postgresql', reader: pair!.postgresql.reader },
    { name: 'opensearch', reader: pair!.opensearch.reader },
  ];

  /** The production app over `reader` with its listInstances counted; `env` on top of a budget out of the way. */
  function subject(reader: Reader, env: Record<string, string> = {}): Subject {
    const counted = countingReader(reader);
    const log = new MemoryLog();
    const config = loadCoreConfig({ NODE_ENV: 'production', GRAPHQL_MAX_COST: '1000000000', GRAPHQL_MAX_COST_IN_FLIGHT: '0', ...env });
    const app = createApp({ config, reader: counted.reader, logger: log.logger('info'), backend: 'test' });
    opened.push(app);
    return { app, stats: counted.stats, log };
  }

  async function exported(app: App, format: Format, filter?: unknown, headers: Record<string, string> = {}): Promise<Exported> {
    const response = await app.fetch(exportRequest(format, filter, headers));
    expect(response.status, await peekError(response)).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    const encoding = response.headers.get('content-encoding');
    expect(encoding).toBe(headers['accept-encoding'] ?? null);
    const decoded = encoding === 'gzip' ? gunzipSync(bytes) : encoding === 'br' ? brotliDecompressSync(bytes) : bytes;
    return parseExport(format, decoded.toString('utf8'));
  }

  it('exports every run newest first, equal to all pages of the list, in JSONL and CSV, gzip, brotli or not, alike on both backends', async () => {
    const answers: Row[][] = [];
    for (const { reader } of backends()) {
      const { app } = subject(reader, { EXPORT_PAGE_SIZE: '37' });
      const list = await listAll(app, null, {}, 50);
      expect(list).toHaveLength(RUNS);
      for (const format of FORMATS) {
        for (const headers of [{}, { 'accept-encoding': 'gzip' }, { 'accept-encoding': 'br' }] as Record<string, string>[]) {
          const out = await exported(app, format, undefined, headers);
          expect(out.trailer).toEqual({ complete: true, rows: RUNS });
          expect(out.rows).toEqual(list);
        }
      }
      const response = await app.fetch(exportRequest('csv', undefined, { 'accept-encoding': 'gzip' }));
      expect(response.headers.get('content-encoding')).toBe('gzip');
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="workflow-instances-\d{8}T\d{6}Z\.csv"$/);
      await response.body?.cancel();
      answers.push(list);
    }
    expect(answers[1]).toEqual(answers[0]);
    // Newest first, ties by id: the list's default order.
    const order = answers[0]!.map((r) => [micros(r['startDate'] as string), r['id']] as [string, string]);
    const sorted = [...order].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? 1 : -1));
    expect(order).toEqual(sorted);
  }, 120_000);

  it('honours the filter as the list does, shorthand included', async () => {
    const filters = [{ status: 'FAULTED' }, { namespace: 'org.acme.shop', status: { ne: 'RUNNING' } }, { or: [{ namespace: { isNull: true } }, { name: { like: 'wf =*' } }] }, { input: { eq: [{ key: 'text', value: 'a,b' }] } }];
    for (const { reader } of backends()) {
      const { app } = subject(reader, { EXPORT_PAGE_SIZE: '9' });
      for (const filter of filters) {
        const list = await listAll(app, filter);
        expect(list.length).toBeGreaterThan(0);
        expect(list.length).toBeLessThan(RUNS);
        for (const format of FORMATS) expect((await exported(app, format, filter)).rows).toEqual(list);
      }
    }
  }, 120_000);

  it('property: for random run subsets and page sizes the export is the list, in order, without duplicates or skips', async () => {
    const ids = (await listAll(subject(pair!.postgresql.reader).app, null)).map((r) => r['id'] as string);
    const filterArb = fc.oneof(
      fc.subarray(ids).map((chosen) => ({ id: { in: chosen } })),
      fc.record({ status: fc.constantFrom('RUNNING', 'COMPLETED', 'FAULTED') }),
      fc.record({ namespace: fc.constantFrom(...EXPORT_NAMESPACES.filter((n) => n !== null)) }),
      fc.constant(undefined),
    );
    await fc.assert(
      fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 60 }), fc.constantFrom(...FORMATS), async (filter, pageSize, format) => {
        for (const { reader } of backends()) {
          const { app, stats } = subject(reader, { EXPORT_PAGE_SIZE: String(pageSize) });
          const list = await listAll(app, filter ?? null);
          const calls = stats.calls;
          const out = await exported(app, format, filter);
          expect(out.rows).toEqual(list);
          expect(new Set(out.rows.map((r) => r['id'])).size).toBe(out.rows.length);
          expect(out.trailer).toEqual({ complete: true, rows: list.length });
          // Exactly the pages the rows need: full pages, then a short one (an empty one when the count divides).
          expect(stats.calls - calls).toBe(Math.floor(list.length / pageSize) + 1);
          expect(stats.maxLimit).toBeLessThanOrEqual(Math.max(pageSize, 1000));
        }
      }),
      { numRuns: 25, seed: 7 },
    );
  }, 300_000);

  it('refuses a bad format or filter with 400 and a clear message before reading a row', async () => {
    const { app, stats } = subject(pair!.postgresql.reader);
    const bad: [string, string | undefined, RegExp][] = [
      ['xml', undefined, /format must be one of csv, jsonl/],
      ['csv', '{"status": ', /not JSON/],
      ['csv', '[1]', /must be a JSON object/],
      ['csv', '{"colour": {"eq": "red"}}', /filter: Field "colour" is not defined by type "WorkflowInstanceFilterInput"/],
      ['jsonl', '{"status": "DONE"}', /filter\.status\.eq: Value "DONE" does not exist in "WorkflowInstanceStatus" enum/],
      ['jsonl', '{"startDate": {"gt": "2026-05-14T09:00:00"}}', /offset/],
      ['jsonl', `{"id": {"in": [${Array.from({ length: 10_001 }, (_, i) => `"${i}"`).join(',')}]}}`, /10000/],
      ['jsonl', JSON.stringify(Array.from({ length: 40 }).reduce((inner: object) => ({ not: inner }), { status: 'FAULTED' })), /GRAPHQL_MAX_FILTER_DEPTH/],
    ];
    for (const [format, filter, message] of bad) {
      const response = await app.fetch(exportRequest(format, filter));
      const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(response.status).toBe(400);
      expect(body.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
      expect(body.errors[0]!.message).toMatch(message);
    }
    expect(stats.calls).toBe(0);
    expect((await app.fetch(new Request('http://localhost/export/workflow-instances?format=csv', { method: 'POST' }))).status).toBe(405);
  });

  it('refuses a filter whose page costs more than GRAPHQL_MAX_COST, before reading', async () => {
    for (const { reader } of backends()) {
      const { app, stats } = subject(reader, { GRAPHQL_MAX_COST: '300', GRAPHQL_MAX_LIMIT: '10', GRAPHQL_DEFAULT_LIMIT: '10', EXPORT_PAGE_SIZE: '10' });
      expect((await exported(app, 'jsonl', { status: 'FAULTED' })).trailer.complete).toBe(true);
      const calls = stats.calls;
      const costly = { or: Array.from({ length: 30 }, (_, i) => ({ name: { like: `*${i}*` } })) };
      const response = await app.fetch(exportRequest('jsonl', costly));
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/Export cost \d+ per page exceeds the budget of 300 rows \(GRAPHQL_MAX_COST\)/);
      expect(stats.calls).toBe(calls);
    }
  });

  it('reads one page at a time, and the next only once the client has taken the last', async () => {
    for (const { reader } of backends()) {
      const { app, stats } = subject(reader, { EXPORT_PAGE_SIZE: '4' });
      const response = await app.fetch(exportRequest('csv'));
      const body = response.body!.getReader();
      let chunks = 0;
      for (;;) {
        // Before the client reads chunk n+1, the reader was asked for at most n+1 pages (the first before the status).
        expect(stats.calls).toBeLessThanOrEqual(chunks + 1);
        const { done } = await body.read();
        if (done) break;
        chunks++;
        // Give a read-ahead every chance to show.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(chunks).toBe(Math.ceil((RUNS + 1) / 4));
      expect(stats.maxInFlight).toBe(1);
      expect(stats.maxLimit).toBe(4);
    }
  });

  it('stops reading when the client goes away, in process and over a socket with gzip', async () => {
    for (const { reader } of backends()) {
      const { app, stats, log } = subject(reader, { EXPORT_PAGE_SIZE: '3' });
      const abort = new AbortController();
      const response = await app.fetch(exportRequest('jsonl', undefined, { 'accept-encoding': 'gzip' }, abort.signal));
      expect(response.headers.get('content-encoding')).toBe('gzip');
      const body = response.body!.getReader();
      await body.read();
      await body.read();
      abort.abort();
      await body.cancel();
      const calls = stats.calls;
      await settle();
      expect(stats.calls).toBe(calls);
      expect(log.entries.some((e) => e['msg'] === 'export finished' && e['outcome'] === 'cancelled')).toBe(true);

      const socketSide = subject(reader, { EXPORT_PAGE_SIZE: '1' });
      const server = await listen(socketSide.app);
      try {
        const partial = await readPartOverSocket(server, 1);
        expect(partial.encoding).toBe('gzip');
        await until(() => socketSide.log.entries.some((e) => e['msg'] === 'export finished'));
        const after = socketSide.stats.calls;
        await settle();
        expect(socketSide.stats.calls).toBe(after);
        expect(after).toBeLessThan(RUNS);
        expect(socketSide.log.entries.find((e) => e['msg'] === 'export finished')?.['outcome']).toBe('cancelled');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('ends cleanly with a truncated trailer when the backend fails mid-export', async () => {
    for (const { reader } of backends()) {
      for (const format of FORMATS) {
        const { app, stats, log } = subject(reader, { EXPORT_PAGE_SIZE: '10' });
        stats.failAt = 3;
        const out = await exported(app, format);
        expect(out.rows).toHaveLength(20);
        expect(out.trailer).toEqual({ complete: false, rows: 20, code: 'SERVICE_UNAVAILABLE', message: 'The storage backend is unavailable; try again later.' });
        expect(log.entries.find((e) => e['msg'] === 'export finished')).toMatchObject({ outcome: 'truncated', rows: 20, errorCode: 'SERVICE_UNAVAILABLE' });
        // Failing on the first page is still an HTTP status.
        stats.failAt = stats.calls + 1;
        expect((await app.fetch(exportRequest(format))).status).toBe(503);
      }
    }
  });

  it("takes one of the client's requests in flight (HTTP_MAX_REQUESTS_PER_CLIENT) until its body ends", async () => {
    const { app } = subject(pair!.postgresql.reader, { HTTP_MAX_REQUESTS_PER_CLIENT: '1', EXPORT_PAGE_SIZE: '5' });
    const client = { address: '192.0.2.7' };
    const held = await app.fetch(exportRequest('jsonl'), client);
    expect(held.status).toBe(200);
    const refused = await app.fetch(exportRequest('jsonl'), client);
    expect(refused.status).toBe(429);
    expect((await app.fetch(exportRequest('jsonl'), { address: '192.0.2.8' })).status).toBe(200);
    await held.text();
    const again = await app.fetch(exportRequest('jsonl'), client);
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  describeAccessControl(() => backends(), (reader, env) => subject(reader, env), exported);
});

/** AUTH_MODE=oidc: the same authenticator as /graphql, and the subject's scoped reader. */
function describeAccessControl(
  backends: () => { name: string; reader: Reader }[],
  subject: (reader: Reader, env: Record<string, string>) => Subject,
  exported: (app: App, format: Format, filter?: unknown, headers?: Record<string, string>) => Promise<Exported>,
): void {
  let issuer: TestIssuer | undefined;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    issuer = await startTestIssuer({
      audience: 'https://workflow-index.test/graphql',
      clients: [{ id: 'shop-reader', secret: 's', groups: ['team-shop'] }, { id: 'admin', secret: 'a', groups: ['admins'] }],
    });
    dir = mkdtempSync(join(tmpdir(), 'wi-export-'));
    const rulesFile = join(dir, 'rules.json');
    writeFileSync(rulesFile, JSON.stringify({ rules: [{ group: 'team-shop', namespaces: ['org.acme.shop'], payloads: false }, { group: 'admins', namespaces: ['*'], payloads: true }] }));
    env = { AUTH_MODE: 'oidc', OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: issuer.audience, AUTHZ_RULES_FILE: rulesFile, EXPORT_PAGE_SIZE: '6' };
  });

  afterAll(async () => {
    await issuer?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('access control: a subject exports only its namespaces, payloads redacted; no token 401; a payload filter 403', async () => {
    const shop = { authorization: `Bearer ${await issuer!.clientCredentialsToken('shop-reader')}` };
    const admin = { authorization: `Bearer ${await issuer!.clientCredentialsToken('admin')}` };
    for (const { reader } of backends()) {
      const { app, stats } = subject(reader, env);
      const all = await listAll(app, null, admin);
      const mine = all.filter((r) => r['namespace'] === 'org.acme.shop').map((r) => ({ ...r, inputData: null, outputData: null, error: r['error'] === null ? null : { ...(r['error'] as Row), detail: null } }));
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.length).toBeLessThan(all.length);
      for (const format of FORMATS) {
        expect((await exported(app, format, undefined, admin)).rows).toEqual(all);
        const out = await exported(app, format, undefined, shop);
        expect(out.rows).toEqual(mine);
        expect(out.rows).toEqual(await listAll(app, null, shop));
        // Another namespace in the filter narrows to nothing; it does not widen.
        expect((await exported(app, format, { namespace: 'org.other' }, shop)).rows).toEqual([]);
      }
      const calls = stats.calls;
      const anonymous = await app.fetch(exportRequest('csv'));
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      const forged = await app.fetch(exportRequest('csv', undefined, { authorization: 'Bearer not.a.token' }));
      expect(forged.status).toBe(401);
      const payloadFilter = await app.fetch(exportRequest('csv', { input: { eq: [{ key: 'text', value: 'plain' }] } }, shop));
      expect(payloadFilter.status).toBe(403);
      expect(((await payloadFilter.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('FORBIDDEN');
      expect(stats.calls).toBe(calls);
    }
  });
}

/** A served timestamp as a sortable text of its microseconds (served times drop a zero fraction). */
function micros(served: string): string {
  const [seconds, fraction = ''] = served.replace('Z', '').split('.');
  return `${seconds}.${fraction.padEnd(6, '0')}`;
}

async function peekError(response: Response): Promise<string> {
  return response.status === 200 ? '' : await response.clone().text();
}

/** A few turns of the event loop: anything a stopped export would still read has had its chance to start. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

async function listen(app: App): Promise<Server> {
  const server = createServer((req, res) => app.handleNodeRequest(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Reads `bytes` of a gzip export over a real socket, then hangs up. */
function readPartOverSocket(server: Server, bytes: number): Promise<{ encoding: string | undefined }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/export/workflow-instances?format=csv', headers: { 'accept-encoding': 'gzip' } }, (res) => {
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen >= bytes) {
          req.destroy();
          resolve({ encoding: res.headers['content-encoding'] });
        }
      });
      res.on('error', () => undefined);
      res.on('end', () => reject(new Error('the whole export arrived before the client hung up')));
    });
    req.on('error', () => undefined);
    req.end();
  });
}
