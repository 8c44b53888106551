// How the normalizer replicas split the runs (docs/opensearch.md, "Normalizer replicas"): every instance id belongs to
// one of SLOT_COUNT slots by a stable hash, and each slot is held by at most one replica at a time (a lease document
// per slot, normalizer-slot-store.ts). Each replica aims to hold its fair share of the slots among the live replicas.
// Pure functions only: what the store and the job decide, tested without a cluster.
import { createHash } from 'node:crypto';

/** Slots the runs are split into: the most replicas that can share the work. Fixed: changing it moves runs between
 * slots, so it is part of the stored state (the per-slot checkpoints). */
export const SLOT_COUNT = 32;

/** The slot of raw events without a usable instance id (recorded as ingest errors), and of the jobs done once for the
 * whole installation (retention, the re-normalization after a rules change). */
export const COORDINATOR_SLOT = 0;

/**
 * The slot of an instance id: the first four bytes of the SHA-256 of its UTF-8 bytes, read as an unsigned big-endian
 * integer, modulo SLOT_COUNT. Stable across processes, releases and platforms (no seed, no engine hash).
 */
export function slotOfInstance(instanceId: string): number {
  return createHash('sha256').update(instanceId, 'utf8').digest().readUInt32BE(0) % SLOT_COUNT;
}

/** The slot of a raw event: its instance's, or COORDINATOR_SLOT without a usable instance id. */
export function slotOfEvent(instanceId: string | undefined): number {
  return instanceId === undefined ? COORDINATOR_SLOT : slotOfInstance(instanceId);
}

/** The slots a replica aims to hold among `liveReplicas` (itself included): ceil(slots / replicas). */
export function fairShare(liveReplicas: number, slots = SLOT_COUNT): number {
  return Math.ceil(slots / Math.max(1, liveReplicas));
}

/** A slot's lease as read: who holds it until when (none: never taken, or released). */
export interface SlotLeaseView {
  readonly slot: number;
  readonly holder: string | null;
  readonly expiresAtMs: number;
}

export interface SlotPlanInput {
  readonly me: string;
  readonly nowMs: number;
  /** Every slot's lease, one per slot. */
  readonly leases: readonly SlotLeaseView[];
  /** Replicas with an unexpired membership heartbeat (this one counted even when the listing missed it). */
  readonly liveReplicas: readonly string[];
  /** A re-normalization after a rules change is pending: the coordinator slot's holder takes every slot, the others
   * none, so the walk recomputes runs no other replica writes meanwhile. */
  readonly walkPending: boolean;
}

export interface SlotPlan {
  /** The share this replica aims at. */
  readonly share: number;
  /** Slots it holds and renews. */
  readonly renew: readonly number[];
  /** Free or expired slots it takes (up to its share). */
  readonly take: readonly number[];
}

/** Whether nobody holds the slot now (never taken, released, or expired). */
export function slotIsFree(lease: SlotLeaseView, nowMs: number): boolean {
  return lease.holder === null || lease.expiresAtMs <= nowMs;
}

/** The share of `me`: the fair share, or while a walk is pending every slot for the coordinator slot's holder (or
 * whoever takes it when it is free) and none for the others. */
export function targetShare(input: SlotPlanInput): number {
  if (!input.walkPending) return fairShare(new Set([...input.liveReplicas, input.me]).size);
  const coordinator = input.leases.find((l) => l.slot === COORDINATOR_SLOT);
  const coordinatorFree = coordinator === undefined || slotIsFree(coordinator, input.nowMs);
  return coordinatorFree || coordinator.holder === input.me ? input.leases.length : 0;
}

/**
 * Which slots `me` renews and takes: it renews every slot it holds (releasing the excess is done after a cycle,
 * slotsToRelease) and takes free or expired ones until it holds its share, the coordinator slot first, then in an
 * order rotated by its name so replicas starting together do not all race for the same slots.
 */
export function planSlots(input: SlotPlanInput): SlotPlan {
  const share = targetShare(input);
  const renew = input.leases.filter((l) => l.holder === input.me && l.expiresAtMs > input.nowMs).map((l) => l.slot);
  const free = input.leases.filter((l) => slotIsFree(l, input.nowMs)).map((l) => l.slot);
  const order = preferenceOrder(input.me, input.leases.length);
  const take = free.sort((a, b) => order.indexOf(a) - order.indexOf(b)).slice(0, Math.max(0, share - renew.length));
  return { share, renew: renew.sort((a, b) => a - b), take };
}

/** The order `me` takes free slots in: the coordinator slot, then from a slot picked by its name's hash onwards. */
export function preferenceOrder(me: string, slots = SLOT_COUNT): number[] {
  const start = createHash('sha256').update(me, 'utf8').digest().readUInt32BE(0) % slots;
  const rest = Array.from({ length: slots }, (_, i) => (start + i) % slots).filter((s) => s !== COORDINATOR_SLOT);
  return [COORDINATOR_SLOT, ...rest];
}

/** The slots to give up after a cycle so a replica holds at most `share`: the last ones it would take, never the
 * coordinator slot while it keeps any. */
export function slotsToRelease(me: string, held: readonly number[], share: number, slots = SLOT_COUNT): number[] {
  if (held.length <= share) return [];
  const order = preferenceOrder(me, slots);
  const byPreference = [...held].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return byPreference.slice(share).sort((a, b) => a - b);
}

/**
 * How long at most until a dead replica's slots are held by another live one: its leases and its heartbeat expire
 * `leaseTtlMs` after its last renewal, and each live replica renews (and takes what expired) once per pass, at most
 * `intervalMs` apart when its cycles are idle, plus the time of its pass itself.
 */
export function takeoverBoundMs(leaseTtlMs: number, intervalMs: number, passMs = 0): number {
  return leaseTtlMs + intervalMs + passMs;
}

/** The target CONTRACT §10 sets for taking over a dead replica's share. */
export const TAKEOVER_TARGET_MS = 30_000;
