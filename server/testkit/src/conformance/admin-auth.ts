// Sign-in for the conformance suite run with AUTH_MODE=oidc: a test OpenID provider with one client in an admin group,
// a rules file granting that group every namespace with payloads (`*`, payloads: true), and the client's real access
// token from the issuer's token endpoint. With it every assertion of the suite holds unchanged.
import { startTestSignIn } from '../oidc/sign-in-settings.js';
import type { ConformanceAuth } from './conformance-suite.js';

export interface ConformanceAdminAuth {
  readonly auth: ConformanceAuth;
  /** Stops the issuer and removes the rules file. */
  stop(): Promise<void>;
}

export async function startConformanceAdminAuth(): Promise<ConformanceAdminAuth> {
  const signIn = await startTestSignIn({
    audience: 'https://workflow-index.test/graphql',
    clients: [{ id: 'conformance-admin', secret: 'conformance-admin-secret', groups: ['workflow-index-admins'] }],
    rules: [{ group: 'workflow-index-admins', namespaces: ['*'], payloads: true }],
  });
  try {
    const token = await signIn.issuer.clientCredentialsToken('conformance-admin');
    return { auth: { settings: signIn.settings, authorization: `Bearer ${token}` }, stop: signIn.stop };
  } catch (error) {
    await signIn.stop();
    throw error;
  }
}
