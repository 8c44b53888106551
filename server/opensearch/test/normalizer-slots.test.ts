// How the normalizer replicas split the runs (normalizer-slots.ts), as pure functions: the stable hash of an instance
// id to its slot, the fair share, which slots a replica takes and gives up, and the take-over bound. The same rules
// on a real node: normalizer-replicas.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COORDINATOR_SLOT, SLOT_COUNT, type SlotLeaseView, TAKEOVER_TARGET_MS, fairShare, planSlots, preferenceOrder, slotOfEvent, slotOfInstance, slotsToRelease,
  takeoverBoundMs,
} from '../src/normalizer-slots.js';

describe('the slot of an instance id', () => {
  it('is the first four bytes of the SHA-256 of its UTF-8 bytes modulo 32: pinned values, so no release moves a run', () => {
    // sha256("a") = ca978112…: 0xca978112 % 32 = 18; sha256("") = e3b0c442…: 0xe3b0c442 % 32 = 2
    expect(slotOfInstance('a')).toBe(0xca978112 % 32);
    expect(slotOfInstance('')).toBe(0xe3b0c442 % 32);
    expect(slotOfInstance('order-1234')).toBe(slotOfInstance('order-1234'));
    expect(slotOfInstance('é')).not.toBe(slotOfInstance('e\u0301')); // bytes, not normalized text
  });

  it('is in range for any id, and events without a usable instance id go to the coordinator slot', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (id) => {
      const slot = slotOfInstance(id);
      expect(Number.isInteger(slot) && slot >= 0 && slot < SLOT_COUNT).toBe(true);
      expect(slotOfEvent(id)).toBe(slot);
    }));
    expect(slotOfEvent(undefined)).toBe(COORDINATOR_SLOT);
  });

  it('spreads generated instance ids evenly (every slot within ±30 % of the mean over 32,000 ids)', () => {
    const counts = new Array<number>(SLOT_COUNT).fill(0);
    for (let i = 0; i < 32_000; i++) counts[slotOfInstance(`gen-${i}-${(i * 7919) % 1000}`)]!++;
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(300);
  });
});

describe('fair share and slot plans', () => {
  it('the fair share is ceil(32 / live replicas)', () => {
    expect([1, 2, 3, 4, 5, 32, 40].map((n) => fairShare(n))).toEqual([32, 16, 11, 8, 7, 1, 1]);
    expect(fairShare(0)).toBe(32);
  });

  it('the preference order starts with the coordinator slot and holds every slot once', () => {
    fc.assert(fc.property(fc.string(), (me) => {
      const order = preferenceOrder(me);
      expect(order[0]).toBe(COORDINATOR_SLOT);
      expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: SLOT_COUNT }, (_, i) => i));
    }));
  });

  const free = (): SlotLeaseView[] => Array.from({ length: SLOT_COUNT }, (_, slot) => ({ slot, holder: null, expiresAtMs: 0 }));

  it('a lone replica takes every slot; a replica renews only its unexpired slots and takes free or expired ones up to its share', () => {
    expect(planSlots({ me: 'a', nowMs: 100, leases: free(), liveReplicas: [], walkPending: false }).take).toHaveLength(SLOT_COUNT);
    const leases = free().map((l) => (l.slot < 20 ? { ...l, holder: 'a', expiresAtMs: 200 } : l.slot < 24 ? { ...l, holder: 'b', expiresAtMs: 50 } : l));
    const b = planSlots({ me: 'b', nowMs: 100, leases, liveReplicas: ['a', 'b'], walkPending: false });
    expect(b.share).toBe(16);
    expect(b.renew).toEqual([]); // its own leases expired: taken again like any free slot
    expect(b.take).toHaveLength(12); // slots 20..31 are all that is free
    expect(b.take.every((s) => s >= 20)).toBe(true);
    const a = planSlots({ me: 'a', nowMs: 100, leases, liveReplicas: ['a', 'b'], walkPending: false });
    expect(a.renew).toHaveLength(20);
    expect(a.take).toEqual([]);
    expect(slotsToRelease('a', a.renew, a.share)).toHaveLength(4);
    expect(slotsToRelease('a', a.renew, a.share)).not.toContain(COORDINATOR_SLOT);
  });

  it('while a re-normalization is pending, the coordinator slot\'s holder aims at every slot and the others at none', () => {
    const leases = free().map((l) => (l.slot === 0 ? { ...l, holder: 'a', expiresAtMs: 200 } : l.slot < 10 ? { ...l, holder: 'b', expiresAtMs: 200 } : l));
    expect(planSlots({ me: 'a', nowMs: 100, leases, liveReplicas: ['a', 'b'], walkPending: true }).share).toBe(SLOT_COUNT);
    const b = planSlots({ me: 'b', nowMs: 100, leases, liveReplicas: ['a', 'b'], walkPending: true });
    expect(b.share).toBe(0);
    expect(b.take).toEqual([]);
    expect(slotsToRelease('b', b.renew, 0)).toEqual(b.renew);
  });

  // A simulation of the protocol: rounds in which each live replica plans from the leases as they stand, its takes
  // applied in turn (a conditional write: the first to write a free slot gets it), then releases its excess.
  it('any sequence of joins and deaths: a slot has at most one holder, and once membership is stable every slot is held and the shares are fair', () => {
    const TTL = 10;
    fc.assert(fc.property(fc.array(fc.record({ join: fc.boolean(), who: fc.integer({ min: 0, max: 5 }) }), { minLength: 1, maxLength: 20 }), (events) => {
      let now = 0;
      const live = new Set<string>(['r0']);
      const leases = free();
      const round = (): void => {
        now += 1;
        for (const me of [...live].sort()) {
          const plan = planSlots({ me, nowMs: now, leases: leases.map((l) => ({ ...l })), liveReplicas: [...live], walkPending: false });
          for (const slot of [...plan.renew, ...plan.take]) {
            const l = leases[slot]!;
            const mine = l.holder === me && l.expiresAtMs > now;
            if (mine || l.holder === null || l.expiresAtMs <= now) leases[slot] = { slot, holder: me, expiresAtMs: now + TTL };
          }
          const held = leases.filter((l) => l.holder === me && l.expiresAtMs > now).map((l) => l.slot);
          for (const slot of slotsToRelease(me, held, plan.share)) leases[slot] = { slot, holder: null, expiresAtMs: 0 };
        }
      };
      for (const e of events) {
        if (e.join) live.add(`r${e.who}`);
        else if (live.size > 1) live.delete(`r${e.who}`); // dies: its leases stay until they expire
        round();
        const holders = leases.filter((l) => l.holder !== null && l.expiresAtMs > now);
        expect(new Set(holders.map((l) => l.slot)).size).toBe(holders.length);
      }
      for (let i = 0; i < TTL + 4; i++) round();
      const held = leases.filter((l) => l.holder !== null && l.expiresAtMs > now);
      expect(held).toHaveLength(SLOT_COUNT);
      expect(held.every((l) => live.has(l.holder!))).toBe(true);
      for (const me of live) expect(held.filter((l) => l.holder === me).length).toBeLessThanOrEqual(fairShare(live.size));
    }));
  });
});

describe('the take-over bound', () => {
  it('is the lease TTL plus the interval (plus a pass); the defaults (20 s, 1 s) fit the 30 s of CONTRACT §10', () => {
    expect(takeoverBoundMs(20_000, 1000)).toBe(21_000);
    expect(takeoverBoundMs(20_000, 1000)).toBeLessThanOrEqual(TAKEOVER_TARGET_MS);
    expect(takeoverBoundMs(30_000, 1000)).toBeGreaterThan(TAKEOVER_TARGET_MS);
    expect(takeoverBoundMs(5000, 200, 300)).toBe(5500);
  });
});
