// Sign-in of the console (CONTRACT §8) in real Chromium: the real server with AUTH_MODE=oidc and PostgreSQL loaded
// with the conformance events, a real OpenID provider (the test issuer: oidc-provider with its own login form) on
// another 127.0.0.1 port. Without a session nothing is shown and no /graphql request goes out without a token; the
// browser goes to the issuer's login and comes back to the view it was on, showing only the runs of the account's
// namespaces and the account's name; the export carries the session's token and holds only the account's runs;
// sign-out ends the session at the issuer; the GraphQL UI uses the same session
// and sends the browser to sign in without one; a refused or expired token leads to sign-in again, not to an error.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { startTestIssuer } from '@workflow-index/testkit';
import type { TestIssuer } from '@workflow-index/testkit';
import { buildConsole } from './support/build-console.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { startConsoleServer } from './support/console-server.js';
import type { ConsoleServer } from './support/console-server.js';
import { freePort } from '@workflow-index/testkit';

const AUDIENCE = 'https://workflow-index.test/graphql';
const CLIENT_ID = 'workflow-index-console';
const NAMESPACES = ['com.acme.orders', 'com.acme.billing'];
const SESSION_KEY = 'workflow-index.session';

const available = (await postgresReachable()) && (await chromiumAvailable());

interface GraphQLCall {
  readonly url: string;
  readonly authorization: string | undefined;
}

/** Records every request and every /graphql POST with its Authorization header; refuses anything not on 127.0.0.1. */
async function guard(context: BrowserContext, requested: string[], calls: GraphQLCall[]): Promise<void> {
  await context.route('**/*', async (route) => {
    const request = route.request();
    const url = request.url();
    requested.push(url);
    if (request.method() === 'POST' && new URL(url).pathname === '/graphql') calls.push({ url, authorization: (await request.allHeaders())['authorization'] });
    if (new URL(url).hostname === '127.0.0.1') await route.continue();
    else await route.abort('blockedbyclient');
  });
}

describe.skipIf(!available)('console sign-in in Chromium (AUTH_MODE=oidc)', () => {
  let issuer: TestIssuer;
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let rulesDir: string;
  let expectedIds: string[];
  let env: Record<string, string>;
  const requested: string[] = [];
  const calls: GraphQLCall[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await buildConsole();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    issuer = await startTestIssuer({
      audience: AUDIENCE,
      clients: [{ id: 'admin', secret: 'admin-secret', groups: ['admins'] }],
      accounts: [{ id: 'alice', groups: ['team-orders'], claims: { preferred_username: 'alice.example', email: 'alice@example.test' } }],
      publicClients: [{ id: CLIENT_ID, redirectUris: [`${base}/q/console/`], postLogoutRedirectUris: [`${base}/q/console/`] }],
    });
    rulesDir = mkdtempSync(join(tmpdir(), 'wi-console-sign-in-'));
    const rulesFile = join(rulesDir, 'rules.json');
    writeFileSync(rulesFile, JSON.stringify({ rules: [{ group: 'admins', namespaces: ['*'], payloads: true }, { group: 'team-orders', namespaces: NAMESPACES }] }));
    env = { AUTH_MODE: 'oidc', OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: AUDIENCE, AUTHZ_RULES_FILE: rulesFile, OIDC_CONSOLE_CLIENT_ID: CLIENT_ID };
    server = await startConsoleServer({ port, env, authorization: `Bearer ${await issuer.clientCredentialsToken('admin')}` });
    const all = (await server.graphql<{ r: { id: string; namespace: string | null }[] }>('{ r: getWorkflowInstances(limit: 1000) { id namespace } }')).r;
    expectedIds = all.filter((r) => NAMESPACES.includes(r.namespace ?? '')).map((r) => r.id).sort();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1366, height: 900 }, timezoneId: 'UTC' });
    await guard(context, requested, calls);
    context.on('weberror', (error) => pageErrors.push(error.error().message));
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await issuer?.stop();
    if (rulesDir !== undefined) rmSync(rulesDir, { recursive: true, force: true });
  }, 60_000);

  const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 100 });
  const atLogin = (): Promise<void> => page.waitForURL((url) => url.origin === issuer.issuer && url.pathname.startsWith('/interaction/'));
  const signInAs = async (account: string): Promise<void> => {
    await page.locator('input[name=login]').fill(account);
    await page.locator('input[name=password]').fill('any').catch(() => undefined);
    await page.locator('button[type=submit], input[type=submit]').first().click();
  };
  const rowIds = async (): Promise<string[]> => {
    await page.locator('.table-wrap[aria-busy=false]').waitFor();
    return (await page.locator('[data-testid=runs] tbody tr[data-run-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id') ?? ''))).sort();
  };
  const sessionStored = (): Promise<string | null> => page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY);

  it('without a session shows no data and sends the browser to the issuer login', async () => {
    await page.goto(`${server.baseUrl}/?sort=name.asc`);
    await atLogin();
    // Nothing asked /graphql: the console sends no request without a token.
    expect(calls).toEqual([]);
    const authorize = requested.find((url) => url.startsWith(`${issuer.issuer}/auth?`)) ?? '';
    const params = new URL(authorize).searchParams;
    expect(params.get('client_id')).toBe(CLIENT_ID);
    expect(params.get('redirect_uri')).toBe(`${server.baseUrl}/q/console/`);
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')).not.toBeNull();
    expect(params.get('nonce')).not.toBeNull();
  });

  it('signing in comes back to the same view with only the runs of the account and its name', async () => {
    await signInAs('alice');
    await page.waitForURL(`${server.baseUrl}/?sort=name.asc`);
    expect(expectedIds.length).toBe(8);
    await poll(rowIds).toEqual(expectedIds);
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toBe('alice.example');
    expect(JSON.parse((await sessionStored()) ?? '{}')).toMatchObject({ name: 'alice.example' });
    // Every request to /graphql carried the session's token, and the API answers alice exactly this.
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((call) => call.authorization?.startsWith('Bearer ') === true)).toBe(true);
  });

  it('a refused token in the session leads to sign-in again and back, not to an error page', async () => {
    await page.evaluate((key) => {
      const session = JSON.parse(sessionStorage.getItem(key) ?? '{}') as Record<string, unknown>;
      sessionStorage.setItem(key, JSON.stringify({ ...session, accessToken: 'not-a-jwt' }));
    }, SESSION_KEY);
    const before = requested.length;
    await page.goto(`${server.baseUrl}/?sort=name.desc`);
    // The issuer still has alice's session: the authorization endpoint answers with a code at once.
    await poll(() => requested.slice(before).some((url) => url.startsWith(`${issuer.issuer}/auth?`))).toBe(true);
    await page.waitForURL(`${server.baseUrl}/?sort=name.desc`);
    await poll(rowIds).toEqual(expectedIds);
    expect(await page.getByTestId('sign-in-error').count()).toBe(0);
    expect(JSON.parse((await sessionStored()) ?? '{}')).not.toMatchObject({ accessToken: 'not-a-jwt' });
  });

  it('an expired session goes to sign-in and back', async () => {
    await page.evaluate((key) => {
      const session = JSON.parse(sessionStorage.getItem(key) ?? '{}') as Record<string, unknown>;
      sessionStorage.setItem(key, JSON.stringify({ ...session, expiresAt: Date.now() - 1000 }));
    }, SESSION_KEY);
    const [callsBefore, before] = [calls.length, requested.length];
    await page.goto(`${server.baseUrl}/`);
    await poll(() => requested.slice(before).some((url) => url.startsWith(`${issuer.issuer}/auth?`))).toBe(true);
    await page.waitForURL(`${server.baseUrl}/`);
    await poll(rowIds).toEqual(expectedIds);
    expect(calls.slice(callsBefore).every((call) => call.authorization?.startsWith('Bearer ') === true)).toBe(true);
  });

  it("exports with the session's token: the file holds exactly the account's runs", async () => {
    await page.goto(`${server.baseUrl}/`);
    await poll(rowIds).toEqual(expectedIds);
    const [file, request] = await Promise.all([
      page.waitForEvent('download'),
      page.waitForRequest((r) => new URL(r.url()).pathname === '/export/workflow-instances'),
      page.getByTestId('export').locator('[data-format=jsonl]').click(),
    ]);
    expect((await request.allHeaders())['authorization']).toMatch(/^Bearer /);
    const lines = readFileSync((await file.path()) ?? '', 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.slice(0, -1).map((l) => l['id']).sort()).toEqual(expectedIds);
    expect(lines.at(-1)).toEqual({ export: { complete: true, rows: expectedIds.length } });
  });

  it('the GraphQL UI runs queries with the same session', async () => {
    await page.goto(`${server.baseUrl}/q/graphql-ui`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 60_000 });
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/graphql' && r.request().method() === 'POST' && (r.request().postData() ?? '').includes('RecentInstances'), { timeout: 60_000 });
    await page.locator('.graphiql-execute-button').click();
    const response = await answer;
    expect(response.status()).toBe(200);
    expect((await response.request().allHeaders())['authorization']).toMatch(/^Bearer /);
    const body = (await response.json()) as { data: { getWorkflowInstances: { id: string; namespace: string }[] } };
    const shown = body.data.getWorkflowInstances;
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((r) => NAMESPACES.includes(r.namespace))).toBe(true);
    await poll(() => page.locator('.graphiql-response').innerText()).toContain(shown[0]?.id ?? '?');
  }, 120_000);

  it('sign-out ends the session (here and at the issuer): the console then goes to the login again', async () => {
    await page.goto(`${server.baseUrl}/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await atLogin();
    await page.goto(`${server.baseUrl}/q/health/live`);
    expect(await sessionStored()).toBeNull();
    await page.goto(`${server.baseUrl}/`);
    await atLogin();
    await page.reload();
    await atLogin();
  });

  it('the GraphQL UI without a session goes to sign-in and comes back to it', async () => {
    await page.goto(`${server.baseUrl}/q/graphql-ui`);
    await atLogin();
    await signInAs('alice');
    await page.waitForURL(`${server.baseUrl}/q/graphql-ui`);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 60_000 });
    expect(JSON.parse((await sessionStored()) ?? '{}')).toMatchObject({ name: 'alice.example' });
  }, 120_000);

  it('without OIDC_CONSOLE_CLIENT_ID the console says sign-in is not configured and asks /graphql nothing', async () => {
    const { OIDC_CONSOLE_CLIENT_ID: _unset, ...withoutClient } = env;
    const unconfigured = await startConsoleServer({ env: withoutClient });
    try {
      const callsBefore = calls.length;
      await page.goto(`${unconfigured.baseUrl}/`);
      await poll(() => page.getByTestId('sign-in-not-configured').isVisible()).toBe(true);
      expect(await page.getByTestId('sign-in-not-configured').textContent()).toContain('OIDC_CONSOLE_CLIENT_ID');
      expect(page.url()).toBe(`${unconfigured.baseUrl}/`);
      expect(calls.length).toBe(callsBefore);
    } finally {
      await unconfigured.close();
    }
  }, 120_000);

  it('sent nothing beyond 127.0.0.1, no /graphql request without a token, and no page error', () => {
    expect(requested.filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(calls.filter((call) => call.authorization === undefined)).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(issuer.serverErrors).toEqual([]);
  });
});
