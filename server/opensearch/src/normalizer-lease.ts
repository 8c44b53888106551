// The slot leases of the normalizer replicas (normalizer-slots.ts says how runs map to slots and what share a replica
// aims at). In the normalizer-state index: one lease document per slot (`slot-<n>`: holder, expires_at_ms), taken and
// renewed with optimistic concurrency (if_seq_no / if_primary_term, or create when it never existed), so of replicas
// racing for a slot exactly one wins; and one membership heartbeat per replica (`member-<holder>`: expires_at_ms, the
// slots it holds), which the others count to compute their fair share. A replica that stops renewing loses its slots
// when they expire, and a live one takes them over. (Writes also carry external versions, so a replica that lost a
// slot mid-cycle cannot replace newer documents; and each bulk is fenced by a realtime read of its slots, so a replica
// that was replaced withholds its writes.)
// The single `lease` document of releases before the replicas: while a holder other than a replica still holds it
// unexpired, no replica takes any slot (an old normalizer still runs during an upgrade); it is never written here.
import type { Client } from '@opensearch-project/opensearch';
import type { NormalizerMetrics } from './normalizer-metrics.js';
import { RULES_VERSION } from './normalizer-rules-version.js';
import { COORDINATOR_SLOT, SLOT_COUNT, type SlotLeaseView, planSlots, slotsToRelease } from './normalizer-slots.js';

/** The lease document of releases with a single active normalizer. */
export const LEGACY_LEASE_ID = 'lease';
/** The rules document (normalizer-renormalize.ts): whether a re-normalization is pending. */
const RULES_DOCUMENT_ID = 'rules';

export function slotLeaseId(slot: number): string {
  return `slot-${slot}`;
}

export function memberId(holder: string): string {
  return `member-${holder}`;
}

export interface LeaseOptions {
  readonly index: string;
  readonly holder: string;
  readonly ttlMs: number;
  readonly now?: () => number;
}

interface StoredLease {
  readonly holder?: string | null;
  readonly expires_at_ms?: number;
}

interface SeqNo {
  readonly seqNo: number;
  readonly primaryTerm: number;
}

interface MgetDoc {
  _id: string;
  found: boolean;
  _seq_no?: number;
  _primary_term?: number;
  _source?: Record<string, unknown>;
}

/** This normalizer no longer holds one of its slots (or the state it would move was written by another): it withholds
 * its writes, and the run loop retries after a back-off. */
export class LeaseLostError extends Error {}

/** What one acquire found and did. */
export interface AcquireResult {
  readonly held: readonly number[];
  /** Slots taken by this acquire (not held before): their checkpoints are read again, and what the replica that held
   * them wrote is refreshed before it is read. */
  readonly taken: readonly number[];
  readonly share: number;
  readonly liveReplicas: number;
  /** A normalizer of an earlier release still holds the single lease. */
  readonly legacyHolder: string | null;
  readonly walkPending: boolean;
}

/** The slot-lease job of one normalizer process: heartbeat, takes and renews its share, fences each bulk, releases. */
export class NormalizerLease {
  private readonly options: LeaseOptions;
  private readonly now: () => number;
  /** The slots held, with the version their lease document was last written at. */
  private readonly held = new Map<number, SeqNo>();
  private share = SLOT_COUNT;
  private fencing: Promise<void> = Promise.resolve();
  private renewedAtMs = 0;

  constructor(
    private readonly client: Client,
    options: LeaseOptions,
    private readonly metrics: Pick<NormalizerMetrics, 'active' | 'slotsHeld'>,
  ) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  get holder(): string {
    return this.options.holder;
  }

  /** The slots this process holds (as of its last acquire or renewal), ascending. */
  get heldSlots(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  /** Whether it holds every slot (the re-normalization walk needs that). */
  get holdsAll(): boolean {
    return this.held.size === SLOT_COUNT;
  }

  get holdsCoordinator(): boolean {
    return this.held.has(COORDINATOR_SLOT);
  }

  /**
   * Right before each bulk of normalized documents: throws (the bulk is withheld) when another replica has taken one
   * of this process's slots over, or it holds none. Calls are serialized. When a third of the TTL has passed since
   * the leases were last written it renews them (conditional writes: a slot anyone else wrote since fails), so a long
   * cycle keeps its slots; otherwise it reads its slots' lease documents (a realtime multi-get).
   */
  readonly fence = (): Promise<void> => {
    const next = this.fencing.then(() => this.check());
    this.fencing = next.catch(() => undefined);
    return next;
  };

  /** Heartbeat, renew the held slots and take free or expired ones up to the fair share; true when it holds any. */
  async acquire(): Promise<boolean> {
    return (await this.acquireSlots()).held.length > 0;
  }

  async acquireSlots(): Promise<AcquireResult> {
    const now = this.now();
    const docs = await this.mget([...Array.from({ length: SLOT_COUNT }, (_, s) => slotLeaseId(s)), LEGACY_LEASE_ID, RULES_DOCUMENT_ID]);
    const byId = new Map(docs.map((d) => [d._id, d]));
    const legacy = byId.get(LEGACY_LEASE_ID)?._source as StoredLease | undefined;
    const legacyHolder = legacy?.holder && (legacy.expires_at_ms ?? 0) > now && legacy.holder !== this.holder ? legacy.holder : null;
    const rules = byId.get(RULES_DOCUMENT_ID)?._source as { rules_version?: number } | undefined;
    const walkPending = (rules?.rules_version ?? 1) !== RULES_VERSION;
    const live = await this.liveReplicas(now);
    const before = new Set(this.held.keys());
    this.held.clear();
    if (legacyHolder !== null) {
      await this.writeLeases([], now); // the heartbeat alone: the replicas waiting know each other when it goes
      return { held: [], taken: [], share: 0, liveReplicas: live.length, legacyHolder, walkPending };
    }
    const leases: SlotLeaseView[] = Array.from({ length: SLOT_COUNT }, (_, slot) => {
      const source = byId.get(slotLeaseId(slot))?._source as StoredLease | undefined;
      return { slot, holder: source?.holder ?? null, expiresAtMs: source?.expires_at_ms ?? 0 };
    });
    const plan = planSlots({ me: this.holder, nowMs: now, leases, liveReplicas: live, walkPending });
    this.share = plan.share;
    const versionOf = (slot: number): Partial<SeqNo> => {
      const doc = byId.get(slotLeaseId(slot));
      return doc?.found === true ? { seqNo: doc._seq_no!, primaryTerm: doc._primary_term! } : {};
    };
    await this.writeLeases([...plan.renew, ...plan.take].map((slot) => ({ slot, ...versionOf(slot) })), now);
    const taken = this.heldSlots.filter((s) => !before.has(s));
    return { held: this.heldSlots, taken, share: plan.share, liveReplicas: new Set([...live, this.holder]).size, legacyHolder: null, walkPending };
  }

  /** After a cycle: gives up the slots above the share, so a replica that joined gets work. */
  async releaseExcess(): Promise<number[]> {
    const excess = slotsToRelease(this.holder, this.heldSlots, this.share);
    await this.releaseSlots(excess);
    return excess;
  }

  /** On shutdown: every slot given up and the heartbeat removed, so the others take over at once (a failure only
   * delays them until the leases expire). */
  async release(): Promise<void> {
    try {
      await this.releaseSlots(this.heldSlots);
      await this.client.transport.request({ method: 'DELETE', path: `/${this.options.index}/_doc/${encodeURIComponent(memberId(this.holder))}` }, { ignore: [404] });
    } catch {
      // the leases expire
    }
    this.held.clear();
    this.publishMetrics();
  }

  private async check(): Promise<void> {
    const slots = this.heldSlots;
    if (slots.length === 0) throw new LeaseLostError('this normalizer holds no slot: it withholds its writes');
    const now = this.now();
    if (now - this.renewedAtMs >= this.options.ttlMs / 3) {
      const lost = await this.writeLeases(slots.map((slot) => ({ slot, ...this.held.get(slot)! })), now);
      if (lost.length > 0) throw new LeaseLostError(`another normalizer took slot ${lost.join(', ')}: this one withholds its writes`);
      return;
    }
    const docs = await this.mget(slots.map(slotLeaseId));
    const lost = docs.filter((d) => !d.found || (d._source as StoredLease).holder !== this.holder);
    if (lost.length > 0) throw new LeaseLostError(`another normalizer holds ${lost.map((d) => d._id).join(', ')}: this one withholds its writes`);
  }

  private publishMetrics(): void {
    this.metrics.active.set(this.held.size > 0 ? 1 : 0);
    this.metrics.slotsHeld.set(this.held.size);
  }

  private async mget(ids: readonly string[]): Promise<MgetDoc[]> {
    const response = await this.client.transport.request({ method: 'POST', path: `/${this.options.index}/_mget`, body: { ids } });
    return (response.body as { docs: MgetDoc[] }).docs;
  }

  /** Holders whose heartbeat has not expired (a search: a heartbeat is seen within the index's refresh interval). */
  private async liveReplicas(now: number): Promise<string[]> {
    const response = await this.client.transport.request({
      method: 'POST',
      path: `/${this.options.index}/_search`,
      body: { size: 1000, _source: ['holder'], query: { bool: { filter: [{ term: { kind: 'member' } }, { range: { expires_at_ms: { gt: now } } }] } } },
    });
    const hits = (response.body as { hits: { hits: { _source: { holder?: string } }[] } }).hits.hits;
    return [...new Set(hits.map((h) => h._source.holder).filter((h): h is string => typeof h === 'string'))];
  }

  /**
   * Writes the leases of `slots` to this holder until now + TTL, each conditional on the version it was read or last
   * written at (created when it never existed), and the heartbeat, in one bulk. The slots written are held with their
   * new versions; the others (someone wrote them meanwhile) are dropped and returned.
   */
  private async writeLeases(slots: readonly ({ slot: number } & Partial<SeqNo>)[], now: number): Promise<number[]> {
    const expires = now + this.options.ttlMs;
    const lines: string[] = [];
    for (const { slot, seqNo, primaryTerm } of slots) {
      const action = seqNo === undefined ? { create: { _index: this.options.index, _id: slotLeaseId(slot) } } : { index: { _index: this.options.index, _id: slotLeaseId(slot), if_seq_no: seqNo, if_primary_term: primaryTerm } };
      lines.push(JSON.stringify(action), JSON.stringify({ kind: 'slot-lease', slot, holder: this.holder, expires_at_ms: expires }));
    }
    // The slots it writes (it holds them unless another replica won one this very moment).
    const member = { kind: 'member', holder: this.holder, expires_at_ms: expires, slots: slots.map((s) => s.slot).sort((a, b) => a - b), share: this.share, heartbeat_at_ms: now };
    lines.push(JSON.stringify({ update: { _index: this.options.index, _id: memberId(this.holder) } }), JSON.stringify({ doc: member, doc_as_upsert: true }));
    const response = await this.client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: lines.join('\n') + '\n' });
    const items = (response.body as { items: Record<string, { status: number; _seq_no?: number; _primary_term?: number; error?: unknown }>[] }).items;
    const lost: number[] = [];
    slots.forEach(({ slot }, i) => {
      const result = Object.values(items[i]!)[0]!;
      if (result.status >= 200 && result.status < 300) this.held.set(slot, { seqNo: result._seq_no!, primaryTerm: result._primary_term! });
      else if (result.status === 409) {
        this.held.delete(slot);
        lost.push(slot);
      } else throw new Error(`writing the lease of slot ${slot} failed: ${JSON.stringify(result.error ?? result.status).slice(0, 500)}`);
    });
    const heartbeat = Object.values(items[items.length - 1]!)[0]!;
    if (heartbeat.status >= 300) throw new Error(`writing the heartbeat failed: ${JSON.stringify(heartbeat.error ?? heartbeat.status).slice(0, 500)}`);
    this.renewedAtMs = now;
    this.publishMetrics();
    return lost;
  }

  /** Gives up `slots` (conditional writes: a slot someone else took meanwhile is left to them). */
  private async releaseSlots(slots: readonly number[]): Promise<void> {
    if (slots.length === 0) return;
    const lines: string[] = [];
    for (const slot of slots) {
      const seq = this.held.get(slot)!;
      lines.push(JSON.stringify({ index: { _index: this.options.index, _id: slotLeaseId(slot), if_seq_no: seq.seqNo, if_primary_term: seq.primaryTerm } }));
      lines.push(JSON.stringify({ kind: 'slot-lease', slot, holder: null, expires_at_ms: 0 }));
    }
    for (const slot of slots) this.held.delete(slot);
    this.publishMetrics();
    await this.client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: lines.join('\n') + '\n' });
  }
}
