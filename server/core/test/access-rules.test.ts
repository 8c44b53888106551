// The rules of access control that need no provider: namespace patterns (fast-check against a regular expression of
// their meaning), the union of a subject's rules, the groups claim path, and what the scoped Reader asks the backend.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accessOf, seesEveryPayload } from '../src/auth/access.js';
import { parseAccessRules } from '../src/auth/access-rules.js';
import { groupsOf } from '../src/auth/groups-claim.js';
import { covers, inNamespaceSet, namespaceFilter, namespaceSetOf } from '../src/auth/namespace-set.js';
import { scopedReader } from '../src/auth/scoped-reader.js';
import { VerifiedTokens } from '../src/auth/verified-tokens.js';
import type { Reader } from '../src/reader.js';
import { RecordingReader } from '@workflow-index/testkit';

const CHARS = fc.constantFrom('a', 'b', '.', '?', '%', '_', '\\', 'é', '*');
const namespace = fc.option(fc.string({ unit: fc.constantFrom('a', 'b', '.', '?', '%', '_', '\\', 'é'), maxLength: 6 }), { nil: null });
const pattern = fc.string({ unit: CHARS, minLength: 1, maxLength: 6 });

/** What a rule pattern means: `*` any run of characters, everything else itself; `*` alone every namespace. */
function meaning(patterns: readonly string[], value: string | null): boolean {
  if (patterns.includes('*')) return true;
  if (value === null) return false;
  return patterns.some((p) => new RegExp(`^${p.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'u').test(value));
}

describe('namespace patterns', () => {
  it('property: a namespace is in the set iff one pattern matches it (`*` any characters, `?` `%` `_` literal)', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 4 }), namespace, (patterns, value) => {
        expect(inNamespaceSet(namespaceSetOf(patterns), value)).toBe(meaning(patterns, value));
      }),
      { numRuns: 500 },
    );
  });

  it('a set is one filter on namespace: one in for the plain names, a like per pattern, nothing for *, an empty or for none', () => {
    expect(namespaceFilter(namespaceSetOf(['*', 'org.acme']))).toBeNull();
    expect(namespaceFilter(namespaceSetOf([]))).toEqual({ kind: 'or', nodes: [] });
    expect(namespaceFilter(namespaceSetOf(['org.acme.shop', 'org.acme.*']))).toEqual({
      kind: 'or',
      nodes: [
        { kind: 'string', field: 'namespace', predicate: { op: 'in', values: ['org.acme.shop'] } },
        { kind: 'string', field: 'namespace', predicate: { op: 'like', pattern: [{ kind: 'literal', text: 'org.acme.' }, { kind: 'any' }] } },
      ],
    });
  });
});

describe('rules and subjects', () => {
  const { rules, problems } = parseAccessRules(
    {
      rules: [
        { group: 'shop', namespaces: ['org.acme.shop'], payloads: true },
        { group: 'audit', namespaces: ['org.acme.*'] },
        { group: 'ops', namespaces: ['*'], payloads: true },
      ],
    },
    'test',
  );

  it('a subject gets the union of the rules of its groups; payloads only where a rule with payloads matches', () => {
    expect(problems).toEqual([]);
    const both = accessOf(['shop', 'audit', 'unknown'], rules);
    expect(both.runs).toEqual({ all: false, patterns: ['org.acme.*', 'org.acme.shop'] });
    expect(both.payloads).toEqual({ all: false, patterns: ['org.acme.shop'] });
    expect(seesEveryPayload(both)).toBe(false);
    expect(seesEveryPayload(accessOf(['shop'], rules))).toBe(true);
    expect(accessOf(['ops'], rules).runs.all).toBe(true);
    expect(accessOf([], rules).runs).toEqual({ all: false, patterns: [] });
  });

  it('the groups claim: a name, a dotted path, a namespaced claim with dots; a string is one group, other values none', () => {
    expect(groupsOf({ groups: ['a', 'b', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsOf({ realm_access: { roles: ['r'] } }, 'realm_access.roles')).toEqual(['r']);
    expect(groupsOf({ 'https://acme.example/groups': 'g' }, 'https://acme.example/groups')).toEqual(['g']);
    expect(groupsOf({ groups: { nested: true } }, 'groups')).toEqual([]);
    expect(groupsOf({}, 'realm_access.roles')).toEqual([]);
  });

  it('the scoped Reader narrows lists, counts and task lists before the backend runs them, and leaves full access alone', async () => {
    const reader = new RecordingReader();
    const scoped = scopedReader(reader as Reader, accessOf(['shop'], rules));
    await scoped.countInstancesByStatus(null, { exactLimit: 10 });
    await scoped.countTasks({ kind: 'string', field: 'taskName', predicate: { op: 'eq', value: 't' } }, { exactLimit: 10 });
    const shop = { kind: 'string', field: 'namespace', predicate: { op: 'in', values: ['org.acme.shop'] } };
    expect(reader.calls.find((call) => call.method === 'countInstancesByStatus')).toMatchObject({ filter: shop });
    expect(reader.callsOf('countTasks')[0]?.filter).toEqual({
      kind: 'and',
      nodes: [{ kind: 'instance', node: shop }, { kind: 'string', field: 'taskName', predicate: { op: 'eq', value: 't' } }],
    });
    expect(scopedReader(reader as Reader, accessOf(['ops'], rules))).toBe(reader);
  });
});

describe('verified tokens kept for their lifetime', () => {
  const verified = { subject: 's', groups: ['g'] };
  const publishes = (kid: string) => kid === 'k1';

  it('answers the same token again within its validity window and the clock skew, while its key is published', () => {
    const kept = new VerifiedTokens(10, 30);
    kept.keep('token', { verified, kid: 'k1', notBefore: 1000, expires: 2000 });
    expect(kept.get('token', 1500, publishes)).toBe(verified);
    expect(kept.get('token', 2029, publishes)).toBe(verified);
    expect(kept.get('token', 971, publishes)).toBe(verified);
    expect(kept.get('token', 969, publishes)).toBeNull();
    expect(kept.get('other', 1500, publishes)).toBeNull();
    expect(kept.get('token', 1500, () => false)).toBeNull();
    expect(kept.get('token', 2031, publishes)).toBeNull();
    expect(kept.get('token', 1500, publishes)).toBeNull();
  });

  it('keeps at most its bound, the least recently used leaving first', () => {
    const kept = new VerifiedTokens(2, 0);
    for (const token of ['a', 'b', 'c']) kept.keep(token, { verified, kid: 'k1', notBefore: 0, expires: 10 });
    expect(['a', 'b', 'c'].map((token) => kept.get(token, 5, publishes) !== null)).toEqual([false, true, true]);
  });
});

describe('one namespace set covering another', () => {
  it('property: when a set covers another, every namespace of the other is in it; and a pattern covers what it matches', () => {
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 3 }), fc.array(pattern, { maxLength: 3 }), fc.array(namespace, { maxLength: 20 }), (outer, inner, names) => {
        const [o, i] = [namespaceSetOf(outer), namespaceSetOf(inner)];
        if (covers(o, i)) for (const name of names) if (inNamespaceSet(i, name)) expect(inNamespaceSet(o, name)).toBe(true);
        for (const name of names) if (name !== null && !name.includes('*') && inNamespaceSet(o, name)) expect(covers(o, namespaceSetOf([name]))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('a prefix pattern covers the names and narrower patterns under it, not the reverse', () => {
    const acme = namespaceSetOf(['org.acme.*']);
    expect(covers(acme, namespaceSetOf(['org.acme.shop', 'org.acme.shop.*']))).toBe(true);
    expect(covers(acme, namespaceSetOf(['org.acme']))).toBe(false);
    expect(covers(namespaceSetOf(['org.acme.shop']), acme)).toBe(false);
    expect(covers(namespaceSetOf(['*a*']), namespaceSetOf(['a*']))).toBe(true);
    expect(covers(namespaceSetOf(['a*']), namespaceSetOf(['*']))).toBe(false);
    const subject = accessOf(['wide', 'narrow'], parseAccessRules({ rules: [{ group: 'wide', namespaces: ['org.acme.*'], payloads: true }, { group: 'narrow', namespaces: ['org.acme.shop'] }] }, 'test').rules);
    expect(seesEveryPayload(subject)).toBe(true);
  });
});
