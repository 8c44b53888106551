// A real OpenID provider for the suites: oidc-provider (certified) on 127.0.0.1, behind a small node:http front that
// serves the login form, counts JWKS requests, and swaps in a new Provider (new key, same issuer and port) on
// rotation. See docs/testing.md, "The test OpenID provider".
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Provider } from 'oidc-provider';
import { handleInteraction } from './interactions.js';
import { memoryAdapterFactory } from './memory-adapter.js';
import { JWKS_PATH, providerConfiguration, TOKEN_PATH, type IssuerSetup } from './provider-config.js';
import { signInWithPkce } from './sign-in.js';
import { generateSigningKey, signWithKey, type SigningKey } from './signing-key.js';
import type { TestIssuer, TestIssuerOptions, TestIssuerSignIn } from './types.js';

export * from './types.js';
export type { TestIssuerAlgorithm } from './signing-key.js';

/** Starts a test issuer; `stop()` it when done. */
export async function startTestIssuer(options: TestIssuerOptions): Promise<TestIssuer> {
  const issuer = new RunningIssuer(setupOf(options));
  await issuer.listen(options.port ?? 0);
  return issuer;
}

function setupOf(options: TestIssuerOptions): IssuerSetup {
  return {
    audience: options.audience,
    resource: resourceIndicatorOf(options.audience),
    alg: options.algorithm ?? 'RS256',
    groupsClaim: options.groupsClaim ?? 'groups',
    clients: options.clients,
    publicClients: options.publicClients ?? [],
    accounts: options.accounts ?? [],
    cookieKeys: [randomBytes(32).toString('base64url')],
    adapter: memoryAdapterFactory(),
  };
}

/** The audience itself when it is an absolute URI (RFC 8707 requires one), else a urn naming it. */
function resourceIndicatorOf(audience: string): string {
  return URL.canParse(audience) ? audience : `urn:test-issuer:audience:${encodeURIComponent(audience)}`;
}

class RunningIssuer implements TestIssuer {
  readonly #setup: IssuerSetup;
  readonly #server = http.createServer((request, response) => {
    this.#handle(request, response).catch((error: Error) => this.#fail(response, error));
  });
  readonly #serverErrors: Error[] = [];
  #issuer = '';
  #key: SigningKey | undefined;
  #provider: Provider | undefined;
  #callback: ReturnType<Provider['callback']> | undefined;
  #jwksRequests = 0;

  constructor(setup: IssuerSetup) {
    this.#setup = setup;
  }

  get issuer(): string { return this.#issuer; }
  get audience(): string { return this.#setup.audience; }
  get resource(): string { return this.#setup.resource; }
  get kid(): string { return this.#current().key.kid; }
  get jwksRequests(): number { return this.#jwksRequests; }
  get serverErrors(): readonly Error[] { return this.#serverErrors; }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => resolve());
    });
    this.#issuer = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    await this.rotateKeys();
  }

  async rotateKeys(): Promise<string> {
    const key = await generateSigningKey(this.#setup.alg);
    const provider = new Provider(this.#issuer, providerConfiguration(this.#setup, key));
    provider.on('server_error', (_ctx, error) => this.#serverErrors.push(error));
    provider.silent = true;
    this.#callback = provider.callback();
    this.#provider = provider;
    this.#key = key;
    return key.kid;
  }

  async clientCredentialsToken(clientId: string): Promise<string> {
    const client = this.#setup.clients.find((candidate) => candidate.id === clientId);
    if (client === undefined) throw new Error(`no client ${clientId} in the test issuer`);
    const basic = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64');
    const response = await fetch(`${this.#issuer}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: this.#setup.resource }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!response.ok || body.access_token === undefined) throw new Error(`token endpoint answered ${response.status}: ${JSON.stringify(body)}${this.#errorsNote()}`);
    return body.access_token;
  }

  async signIn(publicClientId: string, accountId: string): Promise<TestIssuerSignIn> {
    const client = this.#setup.publicClients.find((candidate) => candidate.id === publicClientId);
    if (client === undefined) throw new Error(`no public client ${publicClientId} in the test issuer`);
    return signInWithPkce(this.#issuer, this.#setup.resource, client, accountId);
  }

  async signWithIssuerKey(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const defaults = { iss: this.#issuer, aud: this.#setup.audience, sub: 'signed-with-issuer-key', iat: now, exp: now + 300 };
    return signWithKey(this.#current().key, defaults, claims, header);
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve, reject) => this.#server.close((error) => (error ? reject(error) : resolve())));
    this.#server.closeAllConnections();
    await closed;
  }

  async #handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const { provider, callback } = this.#current();
    const { pathname } = new URL(request.url ?? '/', this.#issuer);
    if (pathname === JWKS_PATH && request.method === 'GET') this.#jwksRequests++;
    if (await handleInteraction(provider, this.#setup.accounts, request, response, pathname)) return;
    await callback(request, response);
  }

  #current(): { provider: Provider; callback: ReturnType<Provider['callback']>; key: SigningKey } {
    if (this.#provider === undefined || this.#callback === undefined || this.#key === undefined) throw new Error('the test issuer has not started');
    return { provider: this.#provider, callback: this.#callback, key: this.#key };
  }

  #fail(response: http.ServerResponse, error: Error): void {
    this.#serverErrors.push(error);
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(`test issuer failure: ${error.message}`);
  }

  #errorsNote(): string {
    return this.#serverErrors.length === 0 ? '' : `; server errors: ${this.#serverErrors.map((e) => e.stack ?? e.message).join('\n')}`;
  }
}
