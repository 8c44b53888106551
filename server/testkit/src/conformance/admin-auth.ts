// Sign-in for the conformance suite run with AUTH_MODE=oidc: a test OpenID provider with one client in an admin group,
// a rules file granting that group every namespace with payloads (`*`, payloads: true), and the client's real access
// token from the issuer's token endpoint. With it every assertion of the suite holds unchanged.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestIssuer } from '../oidc/test-issuer.js';
import type { ConformanceAuth } from './conformance-suite.js';

export interface ConformanceAdminAuth {
  readonly auth: ConformanceAuth;
  /** Stops the issuer and removes the rules file. */
  stop(): Promise<void>;
}

export async function startConformanceAdminAuth(): Promise<ConformanceAdminAuth> {
  const audience = 'https://workflow-index.test/graphql';
  const issuer = await startTestIssuer({ audience, clients: [{ id: 'conformance-admin', secret: 'conformance-admin-secret', groups: ['workflow-index-admins'] }] });
  const dir = mkdtempSync(join(tmpdir(), 'wi-conformance-auth-'));
  try {
    const rulesFile = join(dir, 'rules.json');
    writeFileSync(rulesFile, JSON.stringify({ rules: [{ group: 'workflow-index-admins', namespaces: ['*'], payloads: true }] }));
    const token = await issuer.clientCredentialsToken('conformance-admin');
    return {
      auth: {
        settings: { AUTH_MODE: 'oidc', OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: audience, AUTHZ_RULES_FILE: rulesFile },
        authorization: `Bearer ${token}`,
      },
      async stop() {
        await issuer.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await issuer.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
