// AUTH_MODE=oidc against a real OpenID provider (the test kit's oidc-provider issuer): every refusal of CONTRACT §8 is
// HTTP 401 with WWW-Authenticate: Bearer and one UNAUTHENTICATED error before anything reads, on both transports;
// keys rotate without a restart; clock skew edges; an issuer that is down answers 503 and the server recovers by
// itself. The Reader is the test kit's recording one: what is under test is what reaches it.
import { createHmac, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import type { Reader } from '../src/reader.js';
import { MemoryLog, RecordingReader, startTestIssuer, testConfig } from '@workflow-index/testkit';
import type { TestIssuer } from '@workflow-index/testkit';

const AUDIENCE = 'https://workflow-index.test/graphql';
const SKEW = 30;
const RULES = `rules:
  - group: ops
    namespaces: ["*"]
    payloads: true
  - group: team-orders
    namespaces: ["com.acme.orders"]
    payloads: false
`;

let issuer: TestIssuer;
let rulesDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  issuer = await startTestIssuer({
    audience: AUDIENCE,
    clients: [
      { id: 'ops', secret: 'ops-secret', groups: ['ops'] },
      { id: 'orders', secret: 'orders-secret', groups: ['team-orders'] },
      { id: 'stranger', secret: 'stranger-secret', groups: ['elsewhere'] },
    ],
  });
  rulesDir = mkdtempSync(join(tmpdir(), 'wi-auth-'));
  writeFileSync(join(rulesDir, 'rules.yaml'), RULES);
  env = { AUTH_MODE: 'oidc', OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: AUDIENCE, AUTHZ_RULES_FILE: join(rulesDir, 'rules.yaml'), OIDC_CLOCK_SKEW_SECONDS: String(SKEW) };
});

afterAll(async () => {
  await issuer?.stop();
  rmSync(rulesDir, { recursive: true, force: true });
});

function authApp() {
  const log = new MemoryLog();
  const reader = new RecordingReader();
  const app = createApp({ config: testConfig(env), reader: reader as Reader, logger: log.logger(), backend: 'test' });
  return { app, reader, log };
}

const QUERY = '{ getWorkflowInstance(id: "inst-a") { id inputData } }';

async function post(app: ReturnType<typeof authApp>['app'], authorization: string | null, query = QUERY) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== null) headers['authorization'] = authorization;
  const response = await app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers, body: JSON.stringify({ query }) }));
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] } };
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function unsigned(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** HS256 keyed with the issuer's public key (PEM): the algorithm confusion a verifier must refuse. */
async function hmacWithPublicKey(claims: Record<string, unknown>): Promise<string> {
  const jwks = (await (await fetch(`${issuer.issuer}/jwks`)).json()) as { keys: { kid: string }[] };
  const pem = createPublicKey({ key: jwks.keys[0] as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'HS256', typ: 'JWT', kid: jwks.keys[0]?.kid })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
}

async function foreignKeyToken(claims: Record<string, unknown>): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'not-the-issuers' }).sign(privateKey);
}

function standardClaims(): Record<string, unknown> {
  return { iss: issuer.issuer, aud: AUDIENCE, sub: 'someone', iat: nowSeconds(), exp: nowSeconds() + 300, groups: ['ops'] };
}

describe('AUTH_MODE=oidc: refusals', () => {
  const cases: [string, string, () => Promise<string | null>][] = [
    ['missing', 'no Authorization header', async () => null],
    ['malformed', 'another scheme', async () => 'Basic b3BzOm9wcy1zZWNyZXQ='],
    ['malformed', 'a bearer token that is not a JWT', async () => 'Bearer not-a-jwt'],
    ['algorithm', 'alg: none', async () => `Bearer ${unsigned(standardClaims())}`],
    ['algorithm', 'HS256 keyed with the issuer\'s public key', async () => `Bearer ${await hmacWithPublicKey(standardClaims())}`],
    ['unknown_key', 'a key the issuer does not publish', async () => `Bearer ${await foreignKeyToken(standardClaims())}`],
    ['signature', 'a signature that does not verify', async () => `Bearer ${tampered(await issuer.signWithIssuerKey({ sub: 'someone', groups: ['ops'] }))}`],
    ['expired', 'expired beyond the clock skew', async () => `Bearer ${await issuer.signWithIssuerKey({ exp: nowSeconds() - SKEW - 60 })}`],
    ['not_yet_valid', 'nbf beyond the clock skew', async () => `Bearer ${await issuer.signWithIssuerKey({ nbf: nowSeconds() + SKEW + 60 })}`],
    ['issuer', 'another issuer', async () => `Bearer ${await issuer.signWithIssuerKey({ iss: 'https://elsewhere.example' })}`],
    ['audience', 'another audience', async () => `Bearer ${await issuer.signWithIssuerKey({ aud: 'https://another-service.example' })}`],
    ['claims', 'no subject', async () => `Bearer ${await issuer.signWithIssuerKey({ sub: undefined })}`],
    ['claims', 'no expiry', async () => `Bearer ${await issuer.signWithIssuerKey({ exp: undefined })}`],
  ];

  it.each(cases)('%s (%s): 401, WWW-Authenticate: Bearer, one UNAUTHENTICATED error, nothing read, counted by reason', async (reason, _what, token) => {
    const { app, reader, log } = authApp();
    const authorization = await token();
    const answer = await post(app, authorization);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^Bearer( |$)/);
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect(answer.body.data).toBeUndefined();
    expect(reader.calls).toEqual([]);
    const metrics = await (await app.fetch(new Request('http://localhost/q/metrics'))).text();
    expect(metrics).toContain(`workflow_index_auth_refusals_total{reason="${reason}",backend="test"} 1`);
    if (authorization !== null) expect(JSON.stringify(log.entries)).not.toContain(authorization.slice(7));
  });

  it('health and metrics stay open without a token', async () => {
    const { app } = authApp();
    expect((await app.fetch(new Request('http://localhost/q/health/live'))).status).toBe(200);
    expect((await app.fetch(new Request('http://localhost/q/metrics'))).status).toBe(200);
  });
});

function tampered(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const middle = Math.floor(signature.length / 2);
  const flipped = signature[middle] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, middle)}${flipped}${signature.slice(middle + 1)}`;
}

describe('AUTH_MODE=oidc: subjects', () => {
  it('a client-credentials token of the issuer reads; the request log names its subject, never the token', async () => {
    const { app, reader, log } = authApp();
    const token = await issuer.clientCredentialsToken('ops');
    const answer = await post(app, `Bearer ${token}`);
    expect(answer).toMatchObject({ status: 200, body: { data: { getWorkflowInstance: { id: 'inst-a', inputData: '{"orderId":"ORD-1"}' } } } });
    expect(reader.callsOf('getInstance')).toHaveLength(1);
    const line = log.entries.find((entry) => entry['route'] === '/graphql');
    expect(line?.['subject']).toBe('ops');
    expect(JSON.stringify(log.entries)).not.toContain(token);
  });

  it('a run outside the subject\'s namespaces reads as an unknown id; payloads it may not read are null', async () => {
    const { app } = authApp();
    const token = `Bearer ${await issuer.clientCredentialsToken('orders')}`;
    const hidden = await post(app, token, '{ getWorkflowInstance(id: "inst-b") { id name } }');
    expect(hidden).toMatchObject({ status: 200, body: { data: { getWorkflowInstance: null } } });
    expect(hidden.body.errors).toBeUndefined();
    const own = await post(app, token, '{ getWorkflowInstance(id: "inst-a") { id inputData outputData } }');
    expect(own.body).toEqual({ data: { getWorkflowInstance: { id: 'inst-a', inputData: null, outputData: null } } });
  });

  it('a filter on payloads the subject may not read is FORBIDDEN before it runs; so is indexStatus without a * rule', async () => {
    const { app, reader } = authApp();
    const token = `Bearer ${await issuer.clientCredentialsToken('orders')}`;
    const filtered = await post(app, token, '{ getWorkflowInstances(filter: { input: { eq: [{ key: "orderId", value: "ORD-1" }] } }) { id } }');
    expect(filtered.body.errors?.map((e) => e.extensions.code)).toEqual(['FORBIDDEN']);
    expect(reader.callsOf('listInstances')).toEqual([]);
    const status = await post(app, token, '{ indexStatus { backend rawEvents } }');
    expect(status.body.errors?.map((e) => e.extensions.code)).toEqual(['FORBIDDEN']);
    expect(reader.callsOf('ingestionStats')).toEqual([]);
  });

  it('a subject without any rule sees nothing: lists narrowed to no namespace, by-id reads null', async () => {
    const { app, reader } = authApp();
    const token = `Bearer ${await issuer.clientCredentialsToken('stranger')}`;
    const byId = await post(app, token, '{ getWorkflowInstance(id: "inst-a") { id } }');
    expect(byId.body).toEqual({ data: { getWorkflowInstance: null } });
    await post(app, token, '{ getWorkflowInstances { id } }');
    expect(reader.callsOf('listInstances')[0]?.query.filter).toEqual({ kind: 'or', nodes: [] });
  });
});

describe('AUTH_MODE=oidc: clock skew edges', () => {
  it.each([
    ['expired within the skew', () => ({ exp: nowSeconds() - SKEW + 10 }), 200],
    ['expired beyond the skew', () => ({ exp: nowSeconds() - SKEW - 10 }), 401],
    ['nbf ahead within the skew', () => ({ nbf: nowSeconds() + SKEW - 10 }), 200],
    ['nbf ahead beyond the skew', () => ({ nbf: nowSeconds() + SKEW + 10 }), 401],
  ] as const)('%s: %#', async (_what, claims, status) => {
    const { app } = authApp();
    const token = await issuer.signWithIssuerKey({ sub: 'edge', groups: ['ops'], ...claims() });
    expect((await post(app, `Bearer ${token}`)).status).toBe(status);
  });
});

describe('AUTH_MODE=oidc: keys', () => {
  it('keys are cached; a rotation at the issuer is followed without a restart, and the old key is then refused', async () => {
    const { app } = authApp();
    const before = issuer.jwksRequests;
    const oldToken = `Bearer ${await issuer.clientCredentialsToken('ops')}`;
    for (let i = 0; i < 5; i += 1) expect((await post(app, oldToken)).status).toBe(200);
    expect(issuer.jwksRequests - before).toBe(1);
    await issuer.rotateKeys();
    const newToken = `Bearer ${await issuer.clientCredentialsToken('ops')}`;
    // A key it does not hold is fetched again at most once per cooldown (5 s): the new token verifies once it has passed.
    let status = 0;
    for (let attempt = 0; attempt < 40 && status !== 200; attempt += 1) {
      status = (await post(app, newToken)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(status).toBe(200);
    expect(issuer.jwksRequests - before).toBeLessThanOrEqual(3);
    const old = await post(app, oldToken);
    expect(old.status).toBe(401);
  });

  it('tokens naming unknown keys fetch the keys at most once per cooldown', async () => {
    const { app } = authApp();
    await post(app, `Bearer ${await issuer.clientCredentialsToken('ops')}`);
    const before = issuer.jwksRequests;
    for (let i = 0; i < 10; i += 1) await post(app, `Bearer ${await issuer.signWithIssuerKey({ sub: 'x' }, { kid: `spam-${i}` })}`);
    expect(issuer.jwksRequests - before).toBeLessThanOrEqual(1);
  });

  it('an issuer that cannot be reached answers 503 SERVICE_UNAVAILABLE (nothing read), and the server recovers by itself', async () => {
    const down = await startTestIssuer({ audience: AUDIENCE, clients: [{ id: 'ops', secret: 'ops-secret', groups: ['ops'] }] });
    const port = Number(new URL(down.issuer).port);
    const token = `Bearer ${await down.clientCredentialsToken('ops')}`;
    await down.stop();
    const log = new MemoryLog();
    const reader = new RecordingReader();
    const app = createApp({ config: testConfig({ ...env, OIDC_ISSUER: down.issuer }), reader: reader as Reader, logger: log.logger(), backend: 'test' });
    const unavailable = await post(app, token);
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.errors?.map((e) => e.extensions.code)).toEqual(['SERVICE_UNAVAILABLE']);
    expect(reader.calls).toEqual([]);
    const back = await startTestIssuer({ audience: AUDIENCE, clients: [{ id: 'ops', secret: 'ops-secret', groups: ['ops'] }], port });
    try {
      const fresh = `Bearer ${await back.clientCredentialsToken('ops')}`;
      expect((await post(app, fresh)).status).toBe(200);
    } finally {
      await back.stop();
    }
  });
});

describe('AUTH_MODE=oidc over node:http (hot path included)', () => {
  let server: RunningServer;
  let reader: RecordingReader;

  beforeAll(async () => {
    const config = testConfig({ ...env, HTTP_HOST: '127.0.0.1', HTTP_PORT: '0' });
    const log = new MemoryLog();
    reader = new RecordingReader();
    const app = createApp({ config, reader: reader as Reader, logger: log.logger(), backend: 'test' });
    server = await startHttpServer(app, config, log.logger());
  });
  afterAll(async () => server?.close());

  async function send(authorization: string | null, query: string) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization !== null) headers['authorization'] = authorization;
    const response = await fetch(`http://127.0.0.1:${server.httpPort}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
    return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as Record<string, unknown> };
  }

  it('refuses without a token and scopes with one, also once the operation runs on the hot path', async () => {
    const query = '{ getWorkflowInstance(id: "inst-b") { id inputData } }';
    const orders = `Bearer ${await issuer.clientCredentialsToken('orders')}`;
    const ops = `Bearer ${await issuer.clientCredentialsToken('ops')}`;
    for (let round = 0; round < 4; round += 1) {
      const refused = await send(null, query);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toBe('Bearer');
      expect(await send(orders, query)).toMatchObject({ status: 200, body: { data: { getWorkflowInstance: null } } });
      expect(await send(ops, query)).toMatchObject({ status: 200, body: { data: { getWorkflowInstance: { id: 'inst-b' } } } });
    }
  });
});

describe('AUTH_MODE=oidc configuration', () => {
  it('names every missing setting and every problem of the rules file at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-auth-'));
    try {
      writeFileSync(join(dir, 'bad.yaml'), 'rules:\n  - group: ""\n    namespaces: []\n    payloads: "yes"\n    extra: 1\n');
      expect(() => testConfig({ AUTH_MODE: 'oidc' })).toThrow(/OIDC_ISSUER.*OIDC_AUDIENCE.*AUTHZ_RULES_FILE/s);
      const error = (() => {
        try {
          testConfig({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://idp.example', OIDC_AUDIENCE: 'wi', AUTHZ_RULES_FILE: join(dir, 'bad.yaml') });
        } catch (caught) {
          return caught as Error;
        }
        return null;
      })();
      expect(error?.message).toMatch(/unknown keys extra/);
      expect(error?.message).toMatch(/group must be a non-empty string/);
      expect(error?.message).toMatch(/namespaces must be a non-empty list/);
      expect(error?.message).toMatch(/payloads must be true or false/);
      expect(() => testConfig({ OIDC_ISSUER: 'https://idp.example' })).toThrow(/OIDC_ISSUER is set but AUTH_MODE is none/);
      expect(() => testConfig({ OIDC_CONSOLE_CLIENT_ID: 'console' })).toThrow(/OIDC_CONSOLE_CLIENT_ID is set but AUTH_MODE is none/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

