// Tokens that verified, kept until they expire: a client sends the same token with every request for its lifetime,
// and a signature check is most of what access control costs a request. A token is kept by its exact text, so only
// the same bytes are answered from here; its validity window is checked again at each use, and its key must still be
// among the issuer's keys as last fetched (a key the issuer withdrew ends its tokens here as in a full check).
import { LRUCache } from 'lru-cache';
import type { VerifiedToken } from './token-verifier.js';

/** What a verified token needs to be answered again: its subject and groups, and its validity window. */
export interface KeptToken {
  readonly verified: VerifiedToken;
  /** The key it is signed with. */
  readonly kid: string;
  /** Seconds since the epoch, the token's own claims (nbf absent: 0). */
  readonly notBefore: number;
  readonly expires: number;
}

export class VerifiedTokens {
  private readonly kept: LRUCache<string, KeptToken>;

  constructor(
    max: number,
    private readonly clockSkewSeconds: number,
  ) {
    this.kept = new LRUCache({ max });
  }

  /** The token's subject and groups when it verified before and is valid now (within the clock skew). */
  get(token: string, nowSeconds: number, publishes: (kid: string) => boolean): VerifiedToken | null {
    const kept = this.kept.get(token);
    if (kept === undefined || !publishes(kept.kid)) return null;
    if (nowSeconds > kept.expires + this.clockSkewSeconds) {
      this.kept.delete(token);
      return null;
    }
    return nowSeconds < kept.notBefore - this.clockSkewSeconds ? null : kept.verified;
  }

  keep(token: string, kept: KeptToken): void {
    this.kept.set(token, kept);
  }
}
