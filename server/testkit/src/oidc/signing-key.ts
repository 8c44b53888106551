// The test issuer's signing key: generated with jose at start and at each rotation, its kid the key's JWK thumbprint.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export type TestIssuerAlgorithm = 'RS256' | 'ES256';

export interface SigningKey {
  readonly kid: string;
  readonly alg: TestIssuerAlgorithm;
  /** The private JWK (with kid, alg, use) handed to oidc-provider's `jwks`. */
  readonly privateJwk: JWK;
  readonly privateKey: CryptoKey;
}

/** A new key pair for `alg`; a new kid every time. */
export async function generateSigningKey(alg: TestIssuerAlgorithm): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, alg, privateKey, privateJwk: { ...jwk, kid, alg, use: 'sig' } };
}

/**
 * A JWT signed with `key`: header { alg, typ: 'at+jwt', kid } and the `defaults` claims, each overridden by `header`
 * and `claims` (a claim or header member given as undefined is left out).
 */
export async function signWithKey(key: SigningKey, defaults: Record<string, unknown>, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const payload = withoutUndefined({ ...defaults, ...claims });
  const protectedHeader = withoutUndefined({ alg: key.alg, typ: 'at+jwt', kid: key.kid, ...header });
  return new SignJWT(payload).setProtectedHeader(protectedHeader as { alg: string }).sign(key.privateKey);
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
