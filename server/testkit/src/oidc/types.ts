// The test issuer's public shapes: what a suite configures and what it gets back.
import type { TestIssuerAlgorithm } from './signing-key.js';

/** A confidential client: gets access tokens by client credentials. */
export interface TestIssuerClient {
  id: string;
  secret: string;
  /** Put in its access tokens at the issuer's `groupsClaim` path. Absent: no groups claim at all. */
  groups?: readonly string[];
  /** Further claims for its access tokens, e.g. { realm_access: { roles: [...] } }; groups are set into these. */
  claims?: Record<string, unknown>;
}

/** A user who signs in through the login form (authorization code + PKCE). */
export interface TestIssuerAccount {
  id: string;
  /** Put in its ID token and access tokens at the issuer's `groupsClaim` path. */
  groups?: readonly string[];
  /** Further claims for its ID token and access tokens (email, name, ...). */
  claims?: Record<string, unknown>;
}

/** A public client (no secret, PKCE required) for the authorization code flow, e.g. the web console. */
export interface TestIssuerPublicClient {
  id: string;
  redirectUris: readonly string[];
  /** Where the end-session endpoint may send the browser back to (post_logout_redirect_uri). */
  postLogoutRedirectUris?: readonly string[];
}

export interface TestIssuerOptions {
  /** The `aud` of the access tokens. An absolute URI is also the resource indicator; anything else gets a urn one. */
  audience: string;
  clients: readonly TestIssuerClient[];
  accounts?: readonly TestIssuerAccount[];
  publicClients?: readonly TestIssuerPublicClient[];
  /** Dotted path of the groups claim in tokens; default 'groups'. */
  groupsClaim?: string;
  /** Default RS256. */
  algorithm?: TestIssuerAlgorithm;
  /** Default 0: a free port. Stays the same across key rotations. */
  port?: number;
}

/** The tokens the authorization code flow ends with. */
export interface TestIssuerSignIn {
  accessToken: string;
  idToken: string;
}

export interface TestIssuer {
  /** http://127.0.0.1:<port>; its /.well-known/openid-configuration is served. */
  readonly issuer: string;
  /** The `aud` its access tokens carry. */
  readonly audience: string;
  /** The resource indicator (RFC 8707) naming the audience in token requests. */
  readonly resource: string;
  /** The kid of the current signing key. */
  readonly kid: string;
  /** How many GET requests the JWKS endpoint has answered since start (across rotations). */
  readonly jwksRequests: number;
  /** Errors oidc-provider reported as server errors (its responses say only "server_error"). */
  readonly serverErrors: readonly Error[];
  /** A real access token (JWT) from the token endpoint: client credentials grant for a configured client. */
  clientCredentialsToken(clientId: string): Promise<string>;
  /** The authorization code flow with PKCE for a public client, signing in as the account through the login form. */
  signIn(publicClientId: string, accountId: string): Promise<TestIssuerSignIn>;
  /**
   * A JWT signed with the current key (kid as in the JWKS). Defaults: header { alg, typ: 'at+jwt', kid }, claims
   * { iss, aud, sub: 'signed-with-issuer-key', iat: now, exp: now + 300 }; `claims` and `header` override them, and a
   * member given as undefined is left out.
   */
  signWithIssuerKey(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** Replaces the signing key: the JWKS then serves only a new key. Same issuer URL and port. Returns the new kid. */
  rotateKeys(): Promise<string>;
  /** Stops listening and closes every connection. */
  stop(): Promise<void>;
}
