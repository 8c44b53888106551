// --auth none|admin|scoped of bench:query (both backends): what access control costs a request. `none` runs the server
// as before (AUTH_MODE=none). `admin` and `scoped` start the test OpenID provider in the bench process (a real
// oidc-provider, @workflow-index/testkit), write a rules file to a temporary folder and give the server AUTH_MODE=oidc
// with OIDC_ISSUER, OIDC_AUDIENCE and AUTHZ_RULES_FILE; every measured request then carries a bearer token of one
// client: `admin` one in group `ops` (rule `*` with payloads: the plain Reader, only the token is verified), `scoped`
// one in group `team` (half of the dataset's namespaces, no payloads: the scoped Reader adds a namespace filter). The
// floor stays the backend's own statements or searches, unauthenticated, as before.
import { NAMESPACES, startTestSignIn } from '@workflow-index/testkit';

export const AUTH_MODES = ['none', 'admin', 'scoped'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export const BENCH_AUDIENCE = 'https://workflow-index.bench/graphql';
const CLIENTS = { admin: { id: 'bench-ops', group: 'ops' }, scoped: { id: 'bench-team', group: 'team' } } as const;

/** The `team` rule's namespaces: the first half of the dataset's (com.acme.ns0 … ns4 of 10). */
export function scopedNamespaces(namespaces: number = NAMESPACES): string[] {
  return Array.from({ length: Math.ceil(namespaces / 2) }, (_, n) => `com.acme.ns${n}`);
}

/** The AUTHZ_RULES_FILE of the bench: `ops` reads everything with payloads, `team` half the namespaces without. */
export function benchAccessRules(namespaces: number = NAMESPACES): { rules: Array<{ group: string; namespaces: string[]; payloads: boolean }> } {
  return {
    rules: [
      { group: CLIENTS.admin.group, namespaces: ['*'], payloads: true },
      { group: CLIENTS.scoped.group, namespaces: scopedNamespaces(namespaces), payloads: false },
    ],
  };
}

export interface BenchAuth {
  readonly mode: AuthMode;
  /** More environment for the server process (nothing for `none`). */
  readonly serverEnv: Readonly<Record<string, string>>;
  /** Headers of every measured request (`Authorization: Bearer …`; nothing for `none`). */
  readonly headers: Readonly<Record<string, string>>;
  /** One phrase for the printed summary. */
  readonly description: string;
  stop(): Promise<void>;
}

export async function startBenchAuth(mode: AuthMode): Promise<BenchAuth> {
  if (mode === 'none') return { mode, serverEnv: {}, headers: {}, description: 'none (AUTH_MODE=none, no token)', stop: async () => undefined };
  const signIn = await startTestSignIn({
    audience: BENCH_AUDIENCE,
    clients: Object.values(CLIENTS).map((client) => ({ id: client.id, secret: 'bench-secret', groups: [client.group] })),
    rules: benchAccessRules().rules,
  });
  try {
    const client = CLIENTS[mode];
    const token = await signIn.issuer.clientCredentialsToken(client.id);
    const scope = mode === 'admin' ? 'rule * with payloads: plain Reader, token verification only' : `rule ${scopedNamespaces().join(',')} without payloads: scoped Reader`;
    return {
      mode,
      serverEnv: signIn.settings,
      headers: { authorization: `Bearer ${token}` },
      description: `${mode} (AUTH_MODE=oidc, test issuer ${signIn.issuer.issuer}, RS256 bearer token of ${client.id} in group ${client.group}: ${scope})`,
      stop: signIn.stop,
    };
  } catch (error) {
    await signIn.stop();
    throw error;
  }
}

/**
 * With sign-in on, a request without the token must be refused (401): otherwise the run would measure a server that
 * does not verify anything and print it as the cost of verification.
 */
export async function checkAuthEnforced(baseUrl: string, auth: BenchAuth, body: string): Promise<void> {
  if (auth.mode === 'none') return;
  const response = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await response.body?.cancel();
  if (response.status !== 401) throw new Error(`--auth ${auth.mode}: a request without a token was answered ${response.status}, not 401: the server does not verify tokens`);
}
