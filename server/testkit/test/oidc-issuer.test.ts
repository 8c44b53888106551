// The test OpenID provider against jose, as the server's bearer-token check will use it: discovery, client
// credentials and authorization code + PKCE tokens verified through the live JWKS, groups at flat and dotted paths,
// tokens signed for edge cases, key rotation, JWKS request counting, and a quiet, clean start and stop.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { startTestIssuer, type TestIssuer, type TestIssuerOptions } from '../src/index.js';

const AUDIENCE = 'https://workflow-index.test/graphql';
const REDIRECT_URI = 'http://127.0.0.1:1/console/callback';
const OPTIONS: TestIssuerOptions = {
  audience: AUDIENCE,
  clients: [
    { id: 'reporting', secret: 'reporting-secret', groups: ['team-a', 'team-b'] },
    { id: 'no-groups', secret: 'no-groups-secret' },
  ],
  accounts: [{ id: 'alice', groups: ['team-a'], claims: { email: 'alice@example.test', name: 'Alice' } }],
  publicClients: [{ id: 'console', redirectUris: [REDIRECT_URI] }],
};

const started: TestIssuer[] = [];
async function start(options: TestIssuerOptions): Promise<TestIssuer> {
  const issuer = await startTestIssuer(options);
  started.push(issuer);
  return issuer;
}
afterAll(async () => {
  await Promise.all(started.map((issuer) => issuer.stop()));
});

const jwksOf = (issuer: TestIssuer, cooldownDuration?: number): JWTVerifyGetKey => createRemoteJWKSet(new URL(`${issuer.issuer}/jwks`), cooldownDuration === undefined ? {} : { cooldownDuration });
const servedKids = async (issuer: TestIssuer): Promise<string[]> => ((await (await fetch(`${issuer.issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);

describe('test issuer', () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await start(OPTIONS);
  });
  afterEach(() => {
    expect(issuer.serverErrors).toEqual([]);
  });

  it('serves a discovery document for its http://127.0.0.1 issuer', async () => {
    expect(issuer.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${issuer.issuer}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: issuer.issuer,
      jwks_uri: `${issuer.issuer}/jwks`,
      token_endpoint: `${issuer.issuer}/token`,
      authorization_endpoint: `${issuer.issuer}/auth`,
    });
    expect(discovery['grant_types_supported']).toEqual(expect.arrayContaining(['authorization_code', 'client_credentials']));
    expect(discovery['code_challenge_methods_supported']).toEqual(['S256']);
    expect(discovery['id_token_signing_alg_values_supported']).toContain('RS256');
  });

  it('issues client-credentials access tokens as RS256 JWTs that verify with iss, aud and the groups claim', async () => {
    const token = await issuer.clientCredentialsToken('reporting');
    const { payload, protectedHeader } = await jwtVerify(token, jwksOf(issuer), { issuer: issuer.issuer, audience: AUDIENCE, typ: 'at+jwt', algorithms: ['RS256'] });
    expect(protectedHeader.kid).toBe(issuer.kid);
    expect(payload).toMatchObject({ sub: 'reporting', client_id: 'reporting', groups: ['team-a', 'team-b'] });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('puts no groups claim in the tokens of a client without groups', async () => {
    const { payload } = await jwtVerify(await issuer.clientCredentialsToken('no-groups'), jwksOf(issuer), { issuer: issuer.issuer, audience: AUDIENCE });
    expect(payload).not.toHaveProperty('groups');
  });

  it('refuses a wrong client secret and another resource', async () => {
    const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    const request = (authorization: string, resource: string): Promise<Response> => fetch(`${issuer.issuer}/token`, {
      method: 'POST', headers: { authorization }, body: new URLSearchParams({ grant_type: 'client_credentials', resource }),
    });
    const wrongSecret = await request(basic('reporting', 'nope'), AUDIENCE);
    expect([wrongSecret.status, await wrongSecret.json()]).toEqual([401, expect.objectContaining({ error: 'invalid_client' })]);
    const otherResource = await request(basic('reporting', 'reporting-secret'), 'https://elsewhere.test/');
    expect([otherResource.status, await otherResource.json()]).toEqual([400, expect.objectContaining({ error: 'invalid_target' })]);
  });

  it('signs tokens with its current key for the edge cases a real flow cannot produce', async () => {
    const valid = await issuer.signWithIssuerKey({ sub: 'crafted', groups: ['team-c'] });
    expect(decodeProtectedHeader(valid)).toEqual({ alg: 'RS256', typ: 'at+jwt', kid: issuer.kid });
    const { payload } = await jwtVerify(valid, jwksOf(issuer), { issuer: issuer.issuer, audience: AUDIENCE, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: 'crafted', groups: ['team-c'] });

    const now = Math.floor(Date.now() / 1000);
    const verify = (token: string): Promise<unknown> => jwtVerify(token, jwksOf(issuer), { issuer: issuer.issuer, audience: AUDIENCE });
    await expect(verify(await issuer.signWithIssuerKey({ iat: now - 600, exp: now - 300 }))).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
    await expect(verify(await issuer.signWithIssuerKey({ nbf: now + 300 }))).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'nbf' });
    await expect(verify(await issuer.signWithIssuerKey({ aud: 'https://other.test' }))).rejects.toMatchObject({ claim: 'aud' });
    await expect(verify(await issuer.signWithIssuerKey({ iss: 'http://127.0.0.1:1' }))).rejects.toMatchObject({ claim: 'iss' });
    await expect(verify(await issuer.signWithIssuerKey({ exp: undefined }))).resolves.toBeDefined();
    const unknownKid = await issuer.signWithIssuerKey({}, { kid: 'not-served' });
    await expect(verify(unknownKid)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  it('signs in an account with the authorization code flow and PKCE through the login form', async () => {
    const { idToken, accessToken } = await issuer.signIn('console', 'alice');
    const id = await jwtVerify(idToken, jwksOf(issuer), { issuer: issuer.issuer, audience: 'console' });
    expect(id.payload).toMatchObject({ sub: 'alice', groups: ['team-a'], email: 'alice@example.test', name: 'Alice' });
    const access = await jwtVerify(accessToken, jwksOf(issuer), { issuer: issuer.issuer, audience: AUDIENCE, typ: 'at+jwt' });
    expect(access.payload).toMatchObject({ sub: 'alice', client_id: 'console', groups: ['team-a'] });
  });

  it('answers an unknown account at the login form with 401 and the form again', async () => {
    await expect(issuer.signIn('console', 'mallory')).rejects.toThrow(/answered 401: .*Unknown account &#34;mallory&#34;.*<form/s);
  });

  it('requires PKCE of the public client', async () => {
    const url = new URL(`${issuer.issuer}/auth`);
    url.search = new URLSearchParams({ client_id: 'console', response_type: 'code', scope: 'openid', redirect_uri: REDIRECT_URI }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('counts JWKS requests: keys are fetched once, and again only for an unknown kid after a rotation', async () => {
    const jwks = jwksOf(issuer, 0);
    const before = issuer.jwksRequests;
    await jwtVerify(await issuer.clientCredentialsToken('reporting'), jwks);
    await jwtVerify(await issuer.clientCredentialsToken('no-groups'), jwks);
    expect(issuer.jwksRequests - before).toBe(1);

    const oldKid = issuer.kid;
    const oldToken = await issuer.clientCredentialsToken('reporting');
    const newKid = await issuer.rotateKeys();
    expect(newKid).not.toBe(oldKid);
    expect(issuer.kid).toBe(newKid);
    expect(await servedKids(issuer)).toEqual([newKid]);
    expect(issuer.jwksRequests - before).toBe(2);

    const newToken = await issuer.clientCredentialsToken('reporting');
    expect(decodeProtectedHeader(newToken).kid).toBe(newKid);
    const { payload } = await jwtVerify(newToken, jwks, { issuer: issuer.issuer, audience: AUDIENCE });
    expect(payload['groups']).toEqual(['team-a', 'team-b']);
    expect(issuer.jwksRequests - before).toBe(3);
    await expect(jwtVerify(oldToken, jwksOf(issuer))).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    await expect(jwtVerify(await issuer.signWithIssuerKey({}), jwks)).resolves.toBeDefined();
  });

  it('keeps its issuer URL and the signed-in flow working across a rotation', async () => {
    const before = issuer.issuer;
    await issuer.rotateKeys();
    expect(issuer.issuer).toBe(before);
    const { idToken } = await issuer.signIn('console', 'alice');
    expect(decodeProtectedHeader(idToken).kid).toBe(issuer.kid);
    await expect(jwtVerify(idToken, jwksOf(issuer), { issuer: before, audience: 'console' })).resolves.toBeDefined();
  });
});

describe('test issuer options', () => {
  it('puts groups at a dotted path beside the client\'s other claims, for a non-URI audience', async () => {
    const issuer = await start({
      audience: 'workflow-index',
      groupsClaim: 'realm_access.roles',
      clients: [{ id: 'keycloak-like', secret: 's', groups: ['wi-readers'], claims: { realm_access: { roles: ['replaced'], other: 1 }, azp: 'keycloak-like' } }],
    });
    expect(issuer.resource).toBe('urn:test-issuer:audience:workflow-index');
    const { payload } = await jwtVerify(await issuer.clientCredentialsToken('keycloak-like'), jwksOf(issuer), { issuer: issuer.issuer, audience: 'workflow-index' });
    expect(payload['realm_access']).toEqual({ roles: ['wi-readers'], other: 1 });
    expect(payload).not.toHaveProperty('groups');
  });

  it('signs with ES256 when asked', async () => {
    const issuer = await start({ ...OPTIONS, algorithm: 'ES256' });
    const { protectedHeader } = await jwtVerify(await issuer.clientCredentialsToken('reporting'), jwksOf(issuer), { algorithms: ['ES256'] });
    expect(protectedHeader.alg).toBe('ES256');
    const { idToken } = await issuer.signIn('console', 'alice');
    expect(decodeProtectedHeader(idToken).alg).toBe('ES256');
    await expect(jwtVerify(await issuer.signWithIssuerKey({}), jwksOf(issuer), { algorithms: ['ES256'] })).resolves.toBeDefined();
  });

  it('prints nothing, and stop() closes the listener and its connections so the port can be taken again', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method));
    const listeners = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    const listenersBefore = listeners();
    const issuer = await startTestIssuer(OPTIONS);
    await issuer.clientCredentialsToken('reporting');
    await issuer.signIn('console', 'alice');
    await fetch(`${issuer.issuer}/no-such-route`);
    await issuer.stop();
    // A closed handle leaves the list at libuv's next close phase, just after stop() resolves.
    await expect.poll(listeners, { timeout: 1000, interval: 10 }).toBe(listenersBefore);
    await expect(fetch(`${issuer.issuer}/jwks`)).rejects.toThrow();

    const again = await startTestIssuer({ ...OPTIONS, port: Number(new URL(issuer.issuer).port) });
    expect(again.issuer).toBe(issuer.issuer);
    await again.stop();
    for (const spy of spies) {
      expect(spy).not.toHaveBeenCalled();
      spy.mockRestore();
    }
  });
});
