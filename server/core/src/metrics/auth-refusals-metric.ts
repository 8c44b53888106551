import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import type { RefusalReason } from '../auth/token-verifier.js';

const REASONS: readonly (RefusalReason | 'issuer_unavailable')[] = ['missing', 'malformed', 'expired', 'not_yet_valid', 'issuer', 'audience', 'unknown_key', 'algorithm', 'signature', 'claims', 'issuer_unavailable'];

/** Requests refused for their credentials, by reason (never a token or a subject); every reason exported from 0. */
export function authRefusalsMetric(registry: Registry): (reason: string) => void {
  const refusals = new Counter({
    name: 'workflow_index_auth_refusals_total',
    help: 'POST /graphql requests refused for their credentials (AUTH_MODE=oidc), by reason: missing, malformed, expired, not_yet_valid, issuer, audience, unknown_key, algorithm, signature, claims, issuer_unavailable.',
    labelNames: ['reason'],
    registers: [registry],
  });
  for (const reason of REASONS) refusals.inc({ reason }, 0);
  return (reason) => refusals.inc({ reason });
}
