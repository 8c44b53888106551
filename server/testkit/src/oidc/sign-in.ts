// The authorization code flow with PKCE driven over plain HTTP, as a browser would: the authorization request, the
// login form posted as the account, every redirect followed by hand with the issuer's cookies, then the code exchange.
import { createHash, randomBytes } from 'node:crypto';
import type { TestIssuerPublicClient, TestIssuerSignIn } from './types.js';

interface Endpoints { authorization_endpoint: string; token_endpoint: string }

/** Signs in as `accountId` through `client` and returns the tokens of the code exchange. */
export async function signInWithPkce(issuer: string, resource: string, client: TestIssuerPublicClient, accountId: string): Promise<TestIssuerSignIn> {
  const endpoints = await discover(issuer);
  const redirectUri = client.redirectUris[0];
  if (redirectUri === undefined) throw new Error(`public client ${client.id} has no redirect URI`);
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorization = new URL(endpoints.authorization_endpoint);
  authorization.search = new URLSearchParams({
    client_id: client.id, response_type: 'code', scope: 'openid', redirect_uri: redirectUri, state, resource,
    nonce: randomBytes(16).toString('base64url'), code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  }).toString();
  const browser = new CookieBrowser(redirectUri);
  const loginPage = await browser.navigate(authorization.href);
  const callback = await browser.navigate(formAction(loginPage), new URLSearchParams({ login: accountId, password: 'unused' }));
  return exchangeCode(endpoints.token_endpoint, client.id, redirectUri, verifier, codeOf(callback, state));
}

async function discover(issuer: string): Promise<Endpoints> {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  return (await response.json()) as Endpoints;
}

/** Where a page arrived at: its URL and its body (empty for the redirect to the client). */
interface Arrival { url: string; body: string }

/** Keeps the issuer's cookies and follows redirects until a page or the client's redirect URI. */
class CookieBrowser {
  readonly #cookies = new Map<string, string>();
  readonly #redirectUri: string;

  constructor(redirectUri: string) {
    this.#redirectUri = redirectUri;
  }

  async navigate(url: string, form?: URLSearchParams): Promise<Arrival> {
    let next: { url: string; form?: URLSearchParams } = { url, form };
    for (let hops = 0; hops < 20; hops++) {
      if (next.url.startsWith(this.#redirectUri)) return { url: next.url, body: '' };
      const response = await this.#request(next.url, next.form);
      const location = response.headers.get('location');
      if (location === null) return { url: next.url, body: await this.#page(response) };
      await response.body?.cancel();
      next = { url: new URL(location, next.url).href };
    }
    throw new Error(`more than 20 redirects from ${url}`);
  }

  async #request(url: string, form: URLSearchParams | undefined): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
    const init: RequestInit = form === undefined ? { headers } : { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: form };
    const response = await fetch(url, { ...init, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      this.#cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    return response;
  }

  async #page(response: Response): Promise<string> {
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${response.url} answered ${response.status}: ${body}`);
    return body;
  }
}

function formAction(page: Arrival): string {
  const action = /<form[^>]*\saction="([^"]+)"/.exec(page.body)?.[1];
  if (action === undefined) throw new Error(`no form at ${page.url}: ${page.body}`);
  return new URL(action.replaceAll('&amp;', '&'), page.url).href;
}

function codeOf(callback: Arrival, state: string): string {
  const params = new URL(callback.url).searchParams;
  if (params.get('error') !== null) throw new Error(`authorization failed: ${params.get('error')} ${params.get('error_description') ?? ''}`);
  if (params.get('state') !== state) throw new Error(`state mismatch in ${callback.url}`);
  return params.get('code') ?? '';
}

async function exchangeCode(tokenEndpoint: string, clientId: string, redirectUri: string, verifier: string, code: string): Promise<TestIssuerSignIn> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, redirect_uri: redirectUri, code, code_verifier: verifier }),
  });
  const body = (await response.json()) as { access_token?: string; id_token?: string; error?: string; error_description?: string };
  if (!response.ok || body.access_token === undefined || body.id_token === undefined) throw new Error(`code exchange answered ${response.status}: ${JSON.stringify(body)}`);
  return { accessToken: body.access_token, idToken: body.id_token };
}
