// A bearer token is a JWT signed by one of the issuer's keys with an asymmetric algorithm, for OIDC_AUDIENCE, issued
// by OIDC_ISSUER, within its validity (OIDC_CLOCK_SKEW_SECONDS either side), with a subject. Anything else is refused
// with the reason that failed; `alg: none` and HMAC with a public key are refused as algorithms not allowed.
import { errors, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import { groupsOf } from './groups-claim.js';
import { IssuerKeys, IssuerUnavailableError } from './issuer-keys.js';
import { VerifiedTokens } from './verified-tokens.js';

/** Why a token was refused: the `reason` label of workflow_index_auth_refusals_total. */
export type RefusalReason = 'missing' | 'malformed' | 'expired' | 'not_yet_valid' | 'issuer' | 'audience' | 'unknown_key' | 'algorithm' | 'signature' | 'claims';

export interface VerifiedToken {
  readonly subject: string;
  readonly groups: readonly string[];
}

export interface OidcSettings {
  readonly issuer: string;
  readonly audience: string;
  /** Dotted path of the groups claim, e.g. `groups` or `realm_access.roles`. */
  readonly groupsClaim: string;
  readonly clockSkewSeconds: number;
}

export class TokenRefused extends Error {
  override readonly name = 'TokenRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** How many verified tokens are kept (a few hundred bytes to a few KiB each). */
const KEPT_TOKENS = 10_000;

export class TokenVerifier {
  private readonly keys: IssuerKeys;
  private readonly verified: VerifiedTokens;

  constructor(
    private readonly settings: OidcSettings,
    keyOptions: { cooldownMs?: number; timeoutMs?: number } = {},
  ) {
    this.keys = new IssuerKeys({ issuer: settings.issuer, cooldownMs: keyOptions.cooldownMs ?? 5000, timeoutMs: keyOptions.timeoutMs ?? 5000 });
    this.verified = new VerifiedTokens(KEPT_TOKENS, settings.clockSkewSeconds);
  }

  /** The token's subject and groups; TokenRefused when it does not verify, IssuerUnavailableError when the keys cannot be read. */
  async verify(token: string): Promise<VerifiedToken> {
    const kept = this.verified.get(token, Date.now() / 1000, (kid) => this.keys.publishes(kid));
    if (kept !== null) return kept;
    const keys = await this.keys.get();
    let payload: JWTPayload;
    let kid: string | undefined;
    try {
      ({ payload, protectedHeader: { kid } } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: ASYMMETRIC,
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw refusalOf(error);
    }
    const verified = { subject: payload.sub as string, groups: groupsOf(payload, this.settings.groupsClaim) };
    if (kid !== undefined) this.verified.keep(token, { verified, kid, notBefore: payload.nbf ?? 0, expires: payload.exp as number });
    return verified;
  }
}

function refusalOf(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new TokenRefused('expired', 'The bearer token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) return claimRefusal(error);
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new TokenRefused('unknown_key', "The bearer token is signed with a key the issuer does not publish.");
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new TokenRefused('algorithm', 'The bearer token is signed with an algorithm that is not allowed.');
  if (error instanceof errors.JWSSignatureVerificationFailed) return new TokenRefused('signature', "The bearer token's signature does not verify.");
  if (error instanceof errors.JWKSTimeout || error instanceof IssuerUnavailableError) return error;
  if (error instanceof errors.JOSEError) return new TokenRefused('malformed', 'The bearer token is not a valid signed JWT.');
  // A JWKS fetch that failed (network, status) is not the token's fault.
  return new IssuerUnavailableError(`the OpenID provider's keys could not be read: ${(error as Error).message}`, { cause: error });
}

function claimRefusal(error: InstanceType<typeof errors.JWTClaimValidationFailed>): TokenRefused {
  switch (error.claim) {
    case 'nbf':
      return new TokenRefused('not_yet_valid', 'The bearer token is not valid yet.');
    case 'iss':
      return new TokenRefused('issuer', 'The bearer token is not issued by the configured issuer.');
    case 'aud':
      return new TokenRefused('audience', 'The bearer token is not for this service (audience).');
    default:
      return new TokenRefused('claims', `The bearer token's ${error.claim} claim is missing or invalid.`);
  }
}
