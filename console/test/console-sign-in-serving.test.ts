// What the server tells the console about sign-in (no browser): with AUTH_MODE=none the page, its CSP and the GraphQL
// UI are what they always were; with AUTH_MODE=oidc the page names the issuer, the console's public client and scope
// in a <meta> (no secret, no rule, no other setting), its CSP lets it reach the issuer's origin and nothing more, and
// the GraphQL UI carries the script that sends the console's session; without OIDC_CONSOLE_CLIENT_ID the page says
// sign-in is not configured and the CSP stays as strict as without sign-in.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, GRAPHIQL_SESSION_SCRIPT, SIGN_IN_META_NAME } from '@workflow-index/core';
import { testApp } from '@workflow-index/testkit';
import { buildConsole } from './support/build-console.js';

const ISSUER = 'https://login.example.test:8443/realms/acme';
const CLIENT_SECRET = 'confidential-secret-never-served';

const get = (app: ReturnType<typeof testApp>['app'], path: string): Promise<Response> => app.fetch(new Request(`http://localhost${path}`));

function signInMeta(html: string): unknown {
  const content = new RegExp(`<meta name="${SIGN_IN_META_NAME}" content="([^"]*)"`).exec(html)?.[1];
  return content === undefined ? undefined : JSON.parse(content.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
}

describe('console sign-in settings served to the browser', () => {
  let dir: string;
  let oidc: Record<string, string>;

  beforeAll(async () => {
    await buildConsole();
    dir = mkdtempSync(join(tmpdir(), 'wi-console-sign-in-serving-'));
    const rulesFile = join(dir, 'rules.json');
    writeFileSync(rulesFile, JSON.stringify({ rules: [{ group: 'team-secret-group', namespaces: ['org.hidden.namespace'] }] }));
    // A secret in the environment (as a deployment may hold one for something else) must never reach the page.
    oidc = { AUTH_MODE: 'oidc', OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: 'urn:audience:wi-private', AUTHZ_RULES_FILE: rulesFile, OIDC_CLIENT_SECRET: CLIENT_SECRET };
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('AUTH_MODE=none: no sign-in meta, the strict CSP, and the GraphQL UI without the session script', async () => {
    const { app } = testApp();
    const page = await get(app, '/');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("connect-src 'self';");
    expect(signInMeta(await page.text())).toBeUndefined();
    expect(await (await get(app, '/q/graphql-ui')).text()).not.toContain(GRAPHIQL_SESSION_SCRIPT);
    await app.dispose();
  }, 60_000);

  it('AUTH_MODE=oidc with a console client: issuer, client id and scope only; connect-src adds the issuer origin', async () => {
    const { app } = testApp({ env: { ...oidc, OIDC_CONSOLE_CLIENT_ID: 'workflow-index-console' } });
    for (const path of ['/', '/q/console', '/q/console/']) {
      const page = await get(app, path);
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP.replace("connect-src 'self'", "connect-src 'self' https://login.example.test:8443"));
      const html = await page.text();
      expect(signInMeta(html)).toEqual({ mode: 'oidc', issuer: ISSUER, clientId: 'workflow-index-console', scope: 'openid profile' });
      for (const hidden of [CLIENT_SECRET, 'team-secret-group', 'org.hidden.namespace', 'rules.json', 'urn:audience:wi-private']) expect(html).not.toContain(hidden);
      // Still no inline script: the settings are data, read by the bundled script.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
    expect(await (await get(app, '/q/graphql-ui')).text()).toContain(GRAPHIQL_SESSION_SCRIPT);
    await app.dispose();
  }, 60_000);

  it('the ETag of the page follows the settings (a changed client id is never answered 304)', async () => {
    const etags = [];
    for (const env of [{}, { ...oidc, OIDC_CONSOLE_CLIENT_ID: 'a' }, { ...oidc, OIDC_CONSOLE_CLIENT_ID: 'b' }]) {
      const { app } = testApp({ env });
      etags.push((await get(app, '/')).headers.get('etag'));
      await app.dispose();
    }
    expect(new Set(etags).size).toBe(3);
  });

  it('AUTH_MODE=oidc without OIDC_CONSOLE_CLIENT_ID: the page says sign-in is not configured, the CSP stays strict', async () => {
    const { app } = testApp({ env: { ...oidc, OIDC_CONSOLE_SCOPE: 'openid email' } });
    const page = await get(app, '/');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(signInMeta(await page.text())).toEqual({ mode: 'unconfigured' });
    expect(await (await get(app, '/q/graphql-ui')).text()).not.toContain(GRAPHIQL_SESSION_SCRIPT);
    await app.dispose();
  }, 60_000);
});
