// Sign-in at the issuer as a public client (CONTRACT §8): the authorization code flow with PKCE (S256), state and
// nonce, by oauth4webapi. The pending request (state, nonce, code verifier, the view to come back to) waits in
// sessionStorage while the browser is at the issuer; the redirect URI is this console's /q/console/.
import * as oauth from 'oauth4webapi';
import { clearSession, readSession, saveSession, sameOriginPath } from './session.ts';
import type { Session } from './session.ts';

export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly scope: string;
}

interface Pending {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly returnTo: string;
}

const PENDING_KEY = 'workflow-index.sign-in';
/** Used when the token response names no lifetime. */
const DEFAULT_LIFETIME_SECONDS = 300;

export const redirectUri = (): string => `${location.origin}/q/console/`;

let server: Promise<oauth.AuthorizationServer> | undefined;

/** The issuer's metadata (discovery), once per page load. http issuers (a test or a local provider) are allowed. */
function discover(settings: OidcSettings): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(settings.issuer);
  server ??= oauth.discoveryRequest(issuer, options(issuer)).then((response) => oauth.processDiscoveryResponse(issuer, response));
  return server;
}

function options(url: URL): { [oauth.allowInsecureRequests]?: boolean } {
  return url.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
}

/** Sends the browser to the issuer's authorization endpoint; `returnTo` is a path of this origin. */
export async function startSignIn(settings: OidcSettings, returnTo: string): Promise<void> {
  const as = await discover(settings);
  if (as.authorization_endpoint === undefined) throw new Error(`The issuer ${settings.issuer} names no authorization endpoint.`);
  const pending: Pending = { state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(), verifier: oauth.generateRandomCodeVerifier(), returnTo };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: redirectUri(),
    response_type: 'code',
    scope: settings.scope,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
}

/** This page is the issuer's answer to a sign-in this tab started. */
export function isCallback(): boolean {
  const params = new URLSearchParams(location.search);
  return sessionStorage.getItem(PENDING_KEY) !== null && params.has('state') && (params.has('code') || params.has('error'));
}

/** Exchanges the code for tokens, checks the ID token, keeps the session; returns the path to show next. */
export async function completeSignIn(settings: OidcSettings): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as Pending;
  sessionStorage.removeItem(PENDING_KEY);
  const as = await discover(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  const params = oauth.validateAuthResponse(as, client, new URL(location.href), pending.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri(), pending.verifier, options(new URL(settings.issuer)));
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true });
  const claims = oauth.getValidatedIdTokenClaims(result);
  if (claims === undefined || result.id_token === undefined) throw new Error('The issuer answered without an ID token.');
  saveSession(sessionOf(result.access_token, result.expires_in, result.id_token, claims));
  return sameOriginPath(pending.returnTo) ?? '/q/console/';
}

function sessionOf(accessToken: string, expiresIn: number | undefined, idToken: string, claims: oauth.IDToken): Session {
  const name = [claims['preferred_username'], claims['name'], claims['email'], claims.sub].find((v): v is string => typeof v === 'string' && v !== '');
  return { accessToken, expiresAt: Date.now() + (expiresIn ?? DEFAULT_LIFETIME_SECONDS) * 1000, idToken, name: name ?? claims.sub };
}

/** Forgets the session; ends the issuer's session too when it offers an end-session endpoint, then comes back here. */
export async function signOut(settings: OidcSettings): Promise<void> {
  const idToken = readSession()?.idToken;
  clearSession();
  let endSession: string | undefined;
  try {
    endSession = (await discover(settings)).end_session_endpoint;
  } catch {
    endSession = undefined;
  }
  if (endSession === undefined) {
    location.assign(redirectUri());
    return;
  }
  const url = new URL(endSession);
  url.search = new URLSearchParams({ client_id: settings.clientId, post_logout_redirect_uri: redirectUri(), ...(idToken === undefined ? {} : { id_token_hint: idToken }) }).toString();
  location.assign(url.href);
}

let again: Promise<void> | undefined;

/** The token was refused or has expired: forget it and sign in again, back to the view shown now. Once per page. */
export function signInAgain(settings: OidcSettings): Promise<void> {
  clearSession();
  again ??= startSignIn(settings, `${location.pathname}${location.search}`);
  return again;
}
