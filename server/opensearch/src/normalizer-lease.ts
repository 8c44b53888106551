// One active normalizer at a time: a lease document in the normalizer-state index, taken and renewed with
// optimistic concurrency (if_seq_no / if_primary_term), so of two replicas racing for it exactly one wins. A holder
// that stops renewing loses the lease when it expires; a standby takes it over. (Writes also carry external
// versions, so even a holder that lost the lease mid-cycle cannot replace newer documents; and each bulk is fenced by
// holdsLease, so a holder that was replaced withholds its writes.)
import type { Client } from '@opensearch-project/opensearch';
import type { NormalizerMetrics } from './normalizer-metrics.js';

export const LEASE_ID = 'lease';

export interface LeaseOptions {
  readonly index: string;
  readonly holder: string;
  readonly ttlMs: number;
  readonly now?: () => number;
}

interface StoredLease {
  readonly holder: string;
  readonly expires_at_ms: number;
}

/** Takes or renews the lease; true when this holder has it until now + ttl. */
export async function acquireLease(client: Client, options: LeaseOptions): Promise<boolean> {
  const now = (options.now ?? Date.now)();
  const doc = { kind: 'lease', holder: options.holder, expires_at_ms: now + options.ttlMs };
  const path = `/${options.index}/_doc/${LEASE_ID}`;
  const current = await client.transport.request({ method: 'GET', path }, { ignore: [404] });
  if (current.statusCode === 404) {
    const created = await client.transport.request({ method: 'PUT', path, querystring: { op_type: 'create', refresh: 'false' }, body: doc }, { ignore: [409] });
    return created.statusCode !== 409;
  }
  const body = current.body as { _seq_no: number; _primary_term: number; _source: StoredLease };
  if (body._source.holder !== options.holder && body._source.expires_at_ms > now) return false;
  const updated = await client.transport.request(
    { method: 'PUT', path, querystring: { if_seq_no: String(body._seq_no), if_primary_term: String(body._primary_term) }, body: doc },
    { ignore: [409] },
  );
  return updated.statusCode !== 409;
}

/** Gives the lease up (on shutdown) so a standby takes over at once; only if this holder still has it. */
export async function releaseLease(client: Client, options: LeaseOptions): Promise<void> {
  const path = `/${options.index}/_doc/${LEASE_ID}`;
  const current = await client.transport.request({ method: 'GET', path }, { ignore: [404] });
  if (current.statusCode === 404) return;
  const body = current.body as { _seq_no: number; _primary_term: number; _source: StoredLease };
  if (body._source.holder !== options.holder) return;
  await client.transport.request(
    { method: 'PUT', path, querystring: { if_seq_no: String(body._seq_no), if_primary_term: String(body._primary_term) }, body: { kind: 'lease', holder: options.holder, expires_at_ms: 0 } },
    { ignore: [409] },
  );
}

/**
 * Whether this holder still holds the lease document (a realtime get): checked right before each bulk of normalized
 * documents. Expiry alone does not matter: only another holder's take-over means newer computations exist, and then
 * the replaced holder's bulk is withheld. What this leaves: a bulk already checked and sent is still applied when it
 * executes, so a delete it races with stays protected only by the delete's version, which OpenSearch keeps for
 * `index.gc_deletes` (60 s): a document deleted by the new holder can come back only from a bulk that executes more
 * than 60 s after its writer's last check (normalizer-recompute.ts never deletes an execution for this reason).
 */
export async function holdsLease(client: Client, options: Pick<LeaseOptions, 'index' | 'holder'>): Promise<boolean> {
  const current = await client.transport.request({ method: 'GET', path: `/${options.index}/_doc/${LEASE_ID}` }, { ignore: [404] });
  if (current.statusCode === 404) return false;
  return (current.body as { _source: StoredLease })._source.holder === options.holder;
}

/** This normalizer no longer holds the lease (or the state it would move was written by another): it withholds its
 * writes, and the run loop retries after a back-off. */
export class LeaseLostError extends Error {}

/** The lease job of one normalizer process: takes and renews the lease, fences each bulk, gives it up on shutdown. */
export class NormalizerLease {
  private readonly options: LeaseOptions;

  constructor(
    private readonly client: Client,
    options: Omit<LeaseOptions, 'now'>,
    private readonly metrics: Pick<NormalizerMetrics, 'active'>,
  ) {
    this.options = { index: options.index, holder: options.holder, ttlMs: options.ttlMs };
  }

  get holder(): string {
    return this.options.holder;
  }

  /** Right before each bulk of normalized documents: throws (the bulk is withheld) when another normalizer has taken
   * the lease over. */
  readonly fence = async (): Promise<void> => {
    if (!(await holdsLease(this.client, this.options))) throw new LeaseLostError('another normalizer holds the lease: this one withholds its writes');
  };

  /** Takes or renews the lease. */
  async acquire(): Promise<boolean> {
    const held = await acquireLease(this.client, this.options);
    this.metrics.active.set(held ? 1 : 0);
    return held;
  }

  /** On shutdown: inactive, and the lease given up (a failure only delays a standby until the lease expires). */
  async release(): Promise<void> {
    this.metrics.active.set(0);
    await releaseLease(this.client, this.options).catch(() => undefined);
  }
}
