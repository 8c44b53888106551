// The oidc-provider configuration of the test issuer: JWT access tokens for one resource (the audience) by client
// credentials and by the authorization code flow with PKCE, groups at a dotted claim path, quiet (every default that
// prints a notice when called is replaced, and no development-only defaults are used).
import { errors, type Account, type AdapterFactory, type ClientLike, type ClientMetadata, type Configuration, type IssuedToken, type KoaContextLike, type ResourceServerInfo } from 'oidc-provider';
import { claimsWithGroups, releasedClaimNames } from './claims.js';
import { escapeHtml, htmlPage } from './html.js';
import type { SigningKey, TestIssuerAlgorithm } from './signing-key.js';
import type { TestIssuerAccount, TestIssuerClient, TestIssuerPublicClient } from './types.js';

export const JWKS_PATH = '/jwks';
export const TOKEN_PATH = '/token';
export const INTERACTION_PATH = '/interaction';

/** What stays the same across the Providers of one issuer (a key rotation creates a new Provider). */
export interface IssuerSetup {
  readonly audience: string;
  readonly resource: string;
  readonly alg: TestIssuerAlgorithm;
  readonly groupsClaim: string;
  readonly clients: readonly TestIssuerClient[];
  readonly publicClients: readonly TestIssuerPublicClient[];
  readonly accounts: readonly TestIssuerAccount[];
  readonly cookieKeys: string[];
  readonly adapter: AdapterFactory;
}

/** Lifetimes in seconds (every one set: oidc-provider's default functions print a notice). */
const TTL = { AccessToken: 3600, AuthorizationCode: 60, ClientCredentials: 3600, Grant: 3600, IdToken: 3600, Interaction: 600, RefreshToken: 86_400, Session: 3600 };

export function providerConfiguration(setup: IssuerSetup, key: SigningKey): Configuration {
  return {
    adapter: setup.adapter,
    jwks: { keys: [key.privateJwk] },
    clients: clientMetadata(setup),
    clientDefaults: { id_token_signed_response_alg: setup.alg },
    clientBasedCORS: (_ctx, origin, client) => redirectOriginAllowed(client, origin),
    claims: { openid: ['sub', ...releasedClaimNames(setup.groupsClaim, setup.accounts.map((a) => a.claims))] },
    // The ID token carries the scope's claims (groups) also when an access token is issued beside it.
    conformIdTokenClaims: false,
    cookies: { keys: setup.cookieKeys },
    extraTokenClaims: async (_ctx, token) => tokenClaims(setup, token),
    features: features(setup),
    findAccount: async (_ctx, sub) => findAccount(setup, sub),
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    renderError: async (ctx, out) => page(ctx, `<pre>${escapeHtml(JSON.stringify(out, null, 2))}</pre>`),
    routes: { jwks: JWKS_PATH, token: TOKEN_PATH },
    ttl: TTL,
  };
}

function clientMetadata(setup: IssuerSetup): ClientMetadata[] {
  const confidential = setup.clients.map((client): ClientMetadata => ({
    client_id: client.id, client_secret: client.secret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [],
  }));
  const pub = setup.publicClients.map((client): ClientMetadata => ({
    client_id: client.id, token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: [...client.redirectUris],
    post_logout_redirect_uris: [...(client.postLogoutRedirectUris ?? [])],
  }));
  return [...confidential, ...pub];
}

function features(setup: IssuerSetup): NonNullable<Configuration['features']> {
  return {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    rpInitiatedLogout: {
      enabled: true,
      // Signs out at once (no confirmation page): the form oidc-provider gives, answered "yes" and submitted.
      logoutSource: async (ctx, form) => page(ctx, `${form.replace('</form>', '<input type="hidden" name="logout" value="yes"></form>')}<script>document.forms[0].submit()</script>`),
      postLogoutSuccessSource: async (ctx) => page(ctx, '<p>Signed out.</p>'),
    },
    resourceIndicators: {
      enabled: true,
      // A token request without `resource` gets the audience; a code exchange uses the resource granted.
      defaultResource: async () => setup.resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => resourceServerInfo(setup, indicator),
    },
  };
}

async function resourceServerInfo(setup: IssuerSetup, indicator: string): Promise<ResourceServerInfo> {
  if (indicator !== setup.resource) throw new errors.InvalidTarget(`unknown resource indicator ${indicator}`);
  return { scope: '', audience: setup.audience, accessTokenFormat: 'jwt', accessTokenTTL: TTL.AccessToken, jwt: { sign: { alg: setup.alg } } };
}

/** The groups and claims of the token's principal: the client (client credentials) or the signed-in account. */
function tokenClaims(setup: IssuerSetup, token: IssuedToken): Record<string, unknown> | undefined {
  const principal = token.kind === 'ClientCredentials'
    ? setup.clients.find((client) => client.id === token.clientId)
    : setup.accounts.find((account) => account.id === token.accountId);
  return principal === undefined ? undefined : claimsWithGroups(principal.claims, principal.groups, setup.groupsClaim);
}

function findAccount(setup: IssuerSetup, sub: string): Account | undefined {
  const account = setup.accounts.find((candidate) => candidate.id === sub);
  if (account === undefined) return undefined;
  return { accountId: account.id, claims: () => ({ ...claimsWithGroups(account.claims, account.groups, setup.groupsClaim), sub: account.id }) };
}

function redirectOriginAllowed(client: ClientLike, origin: string): boolean {
  return (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin);
}

async function page(ctx: KoaContextLike, body: string): Promise<void> {
  ctx.type = 'html';
  ctx.body = htmlPage('Test issuer', body);
}
