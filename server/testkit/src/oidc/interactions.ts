// The test issuer's own interactions (oidc-provider's devInteractions print a warning at every start): a login form
// that takes any configured account id (no password check), and consent granted without asking, as a first-party
// identity provider does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InteractionDetails, Provider } from 'oidc-provider';
import { loginForm } from './html.js';
import { INTERACTION_PATH } from './provider-config.js';
import type { TestIssuerAccount } from './types.js';

const ROUTE = new RegExp(`^${INTERACTION_PATH}/([A-Za-z0-9_-]+)(/login)?$`);

/** Answers a request under /interaction/; false when the path is not one of them. */
export async function handleInteraction(provider: Provider, accounts: readonly TestIssuerAccount[], request: IncomingMessage, response: ServerResponse, pathname: string): Promise<boolean> {
  const match = ROUTE.exec(pathname);
  if (match === null) return false;
  try {
    if (request.method === 'GET' && match[2] === undefined) await showInteraction(provider, request, response);
    else if (request.method === 'POST' && match[2] !== undefined) await submitLogin(provider, accounts, request, response);
    else response.writeHead(405).end();
  } catch (error) {
    response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end(`interaction failed: ${(error as Error).message}`);
  }
  return true;
}

async function showInteraction(provider: Provider, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (details.prompt.name === 'login') {
    sendHtml(response, 200, loginForm(`${INTERACTION_PATH}/${details.uid}/login`));
  } else if (details.prompt.name === 'consent') {
    await provider.interactionFinished(request, response, { consent: { grantId: await grantConsent(provider, details) } }, { mergeWithLastSubmission: true });
  } else {
    response.writeHead(501).end(`prompt ${details.prompt.name} is not implemented by the test issuer`);
  }
}

async function submitLogin(provider: Provider, accounts: readonly TestIssuerAccount[], request: IncomingMessage, response: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  const login = (await readForm(request)).get('login') ?? '';
  if (!accounts.some((account) => account.id === login)) {
    sendHtml(response, 401, loginForm(`${INTERACTION_PATH}/${details.uid}/login`, `Unknown account "${login}".`));
    return;
  }
  await provider.interactionFinished(request, response, { login: { accountId: login } }, { mergeWithLastSubmission: false });
}

/** Grants everything the prompt found missing: OpenID scopes and claims, the resource's scopes. */
async function grantConsent(provider: Provider, { grantId, session, params, prompt: { details } }: InteractionDetails): Promise<string> {
  const existing = grantId === undefined ? undefined : await provider.Grant.find(grantId);
  const grant = existing ?? new provider.Grant({ accountId: session!.accountId, clientId: params.client_id });
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  return grant.save();
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
}
