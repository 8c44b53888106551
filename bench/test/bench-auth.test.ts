// bench:query --auth none|admin|scoped (both backends): what the server is started with and what every measured request
// carries. admin: a token of a group whose rule is * with payloads (the plain Reader); scoped: a group with half the
// dataset's namespaces and no payloads (the scoped Reader). The tokens come from the real test OpenID provider.
import { NAMESPACES } from '@workflow-index/testkit';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCH_AUDIENCE, benchAccessRules, scopedNamespaces, startBenchAuth } from '../auth/bench-auth.js';

const claimsOf = (authorization: string | undefined): Record<string, unknown> => {
  const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
};

describe('bench:query --auth', () => {
  it('none: the server as before, no header', async () => {
    const auth = await startBenchAuth('none');
    expect([auth.serverEnv, auth.headers]).toEqual([{}, {}]);
    await auth.stop();
  });

  it('the rules: ops reads everything with payloads, team half of the dataset\'s namespaces without', () => {
    expect(NAMESPACES).toBe(10);
    expect(scopedNamespaces()).toEqual(['com.acme.ns0', 'com.acme.ns1', 'com.acme.ns2', 'com.acme.ns3', 'com.acme.ns4']);
    expect(benchAccessRules()).toEqual({ rules: [
      { group: 'ops', namespaces: ['*'], payloads: true },
      { group: 'team', namespaces: scopedNamespaces(), payloads: false },
    ] });
  });

  it.each([['admin', 'ops'], ['scoped', 'team']] as const)('%s: AUTH_MODE=oidc with the issuer, audience and rules file; a bearer token of group %s', async (mode, group) => {
    const auth = await startBenchAuth(mode);
    let rulesFile = '';
    try {
      expect(Object.keys(auth.serverEnv).sort()).toEqual(['AUTHZ_RULES_FILE', 'AUTH_MODE', 'OIDC_AUDIENCE', 'OIDC_ISSUER']);
      expect(auth.serverEnv['AUTH_MODE']).toBe('oidc');
      rulesFile = auth.serverEnv['AUTHZ_RULES_FILE'] as string;
      expect(JSON.parse(readFileSync(rulesFile, 'utf8'))).toEqual(benchAccessRules());
      const discovery = await (await fetch(`${auth.serverEnv['OIDC_ISSUER']}/.well-known/openid-configuration`)).json() as { issuer: string };
      expect(discovery.issuer).toBe(auth.serverEnv['OIDC_ISSUER']);
      const claims = claimsOf(auth.headers['authorization']);
      expect(claims).toMatchObject({ iss: auth.serverEnv['OIDC_ISSUER'], aud: BENCH_AUDIENCE, groups: [group] });
      expect(auth.serverEnv['OIDC_AUDIENCE']).toBe(BENCH_AUDIENCE);
      expect(Number(claims['exp']) - Date.now() / 1000).toBeGreaterThan(600); // outlives any run
    } finally {
      await auth.stop();
    }
    expect(existsSync(rulesFile)).toBe(false);
  });
});
