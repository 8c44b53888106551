// AUTH_MODE=oidc on POST /graphql: the request's bearer token is verified before anything of the request runs, and
// gives the request its subject and access (request-state.ts). A refusal is HTTP 401 with WWW-Authenticate: Bearer
// and one UNAUTHENTICATED error; an issuer whose keys cannot be read is 503 (the token may be fine).
import { ErrorCode } from '../errors.js';
import { graphqlError } from '../http/responses.js';
import type { Logger } from '../logger.js';
import type { RequestState } from '../request-state.js';
import { accessOf } from './access.js';
import type { AccessRule } from './access-rules.js';
import type { AuthConfig } from './auth-config.js';
import { IssuerUnavailableError } from './issuer-keys.js';
import { TokenRefused, TokenVerifier } from './token-verifier.js';

export interface Authenticator {
  /** null: the request may run, its subject and access set in `state`; else the answer that refuses it. */
  authenticate(authorization: string | null | undefined, state: RequestState): Promise<Response | null>;
}

/** RFC 6750's token characters; a header of another scheme or shape is malformed. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** null with AUTH_MODE=none: every request runs with full access. */
export function createAuthenticator(config: AuthConfig, logger: Logger, keyOptions: { cooldownMs?: number } = {}): Authenticator | null {
  if (config.mode === 'none') return null;
  const verifier = new TokenVerifier(config.oidc, keyOptions);
  return {
    authenticate: async (authorization, state) => {
      try {
        const token = bearerToken(authorization);
        const verified = await verifier.verify(token);
        admit(state, verified.subject, verified.groups, config.rules);
        return null;
      } catch (error) {
        if (error instanceof TokenRefused) return refuse(state, error);
        if (error instanceof IssuerUnavailableError || (error instanceof Error && error.name === 'JWKSTimeout')) return issuerUnavailable(state, error, logger);
        throw error;
      }
    },
  };
}

function bearerToken(authorization: string | null | undefined): string {
  if (authorization === null || authorization === undefined || authorization === '') {
    throw new TokenRefused('missing', 'This service needs a bearer token: send Authorization: Bearer <access token of the OpenID provider>.');
  }
  const match = BEARER.exec(authorization);
  if (match === null) throw new TokenRefused('malformed', 'The Authorization header must be Bearer <token>.');
  return match[1] as string;
}

function admit(state: RequestState, subject: string, groups: readonly string[], rules: readonly AccessRule[]): void {
  state.subject = subject;
  state.access = accessOf(groups, rules);
}

function refuse(state: RequestState, refusal: TokenRefused): Response {
  state.authRefusal = refusal.reason;
  state.errorCodes.push(ErrorCode.UNAUTHENTICATED);
  const challenge = refusal.reason === 'missing' ? 'Bearer' : `Bearer error="invalid_token", error_description="${refusal.message.replaceAll('"', "'")}"`;
  return graphqlError(401, refusal.message, ErrorCode.UNAUTHENTICATED, { 'WWW-Authenticate': challenge });
}

function issuerUnavailable(state: RequestState, error: Error, logger: Logger): Response {
  state.authRefusal = 'issuer_unavailable';
  state.errorCodes.push(ErrorCode.SERVICE_UNAVAILABLE);
  logger.warn({ err: error }, 'OpenID provider unavailable');
  return graphqlError(503, 'The identity provider cannot be reached to verify the token; try again later.', ErrorCode.SERVICE_UNAVAILABLE, { 'Retry-After': '1' });
}
