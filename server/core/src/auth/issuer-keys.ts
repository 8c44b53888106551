// The issuer's signing keys: its discovery document names the JWKS, which jose fetches, caches and fetches again
// when a token names a key it does not hold (at most once per cooldown), so keys rotate without a restart.
// Discovery is read on first use and read again after a failure, so an issuer that is down at start-up is found
// once it answers.
import { createRemoteJWKSet } from 'jose';
import type { JWTVerifyGetKey, RemoteJWKSet } from 'jose';

export interface IssuerKeysOptions {
  readonly issuer: string;
  /** Least time between two JWKS fetches for unknown keys (jose's cooldown). */
  readonly cooldownMs: number;
  /** How long one discovery or JWKS request may take. */
  readonly timeoutMs: number;
}

/** The issuer could not be asked for its keys: the request is answered 503, not 401 (the token may be fine). */
export class IssuerUnavailableError extends Error {
  override readonly name = 'IssuerUnavailableError';
}

export class IssuerKeys {
  private keys: Promise<JWTVerifyGetKey> | null = null;
  private remote: RemoteJWKSet | null = null;

  constructor(private readonly options: IssuerKeysOptions) {}

  /** The key set of the discovery document's jwks_uri. */
  get(): Promise<JWTVerifyGetKey> {
    this.keys ??= this.discover().catch((error: unknown) => {
      this.keys = null;
      throw error;
    });
    return this.keys;
  }

  /** Whether the keys as last fetched, within their cache age, hold `kid` (a token verified before is still good). */
  publishes(kid: string): boolean {
    const remote = this.remote;
    if (remote === null || !remote.fresh) return false;
    return remote.jwks()?.keys.some((key) => key.kid === kid) ?? false;
  }

  private async discover(): Promise<JWTVerifyGetKey> {
    const { issuer, timeoutMs, cooldownMs } = this.options;
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let document: unknown;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
      document = await response.json();
    } catch (error) {
      throw new IssuerUnavailableError(`the OpenID provider's discovery document could not be read: ${(error as Error).message}`, { cause: error });
    }
    const jwksUri = jwksUriOf(document, issuer, url);
    this.remote = createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: cooldownMs, timeoutDuration: timeoutMs });
    return this.remote;
  }
}

function jwksUriOf(document: unknown, issuer: string, url: string): string {
  const fields = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  if (fields['issuer'] !== issuer) {
    throw new IssuerUnavailableError(`${url} names the issuer ${JSON.stringify(fields['issuer'])}, not OIDC_ISSUER ${JSON.stringify(issuer)}`);
  }
  const jwksUri = fields['jwks_uri'];
  if (typeof jwksUri !== 'string' || !URL.canParse(jwksUri)) throw new IssuerUnavailableError(`${url} has no valid jwks_uri`);
  return jwksUri;
}
