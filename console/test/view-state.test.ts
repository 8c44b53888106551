// The URL is the console's whole state: any view written into a query string reads back as the same view, and any
// query string (hand-edited, truncated, hostile) reads as some valid view instead of breaking the page.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseFilter, isInstant, parsePayloadPair, toInstant, withStatuses } from '../src/filters.ts';
import { DEFAULT_VIEW, MATCHES, PAGE_SIZES, RANGES, REFRESH_SECONDS, RUN_TABS, SCREENS, SORT_KEYS, SPANS, STATUSES, formatView, parseView } from '../src/view-state.ts';
import type { ViewState } from '../src/view-state.ts';

const instant = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());

const viewArb: fc.Arbitrary<ViewState> = fc
  .record({
    statuses: fc.subarray([...STATUSES]),
    name: fc.string(),
    namespace: fc.string(),
    version: fc.string(),
    match: fc.constantFrom(...MATCHES),
    text: fc.string(),
    payload: fc.string(),
    range: fc.constantFrom(...RANGES),
    from: instant,
    to: instant,
    sort: fc.constantFrom(...SORT_KEYS),
    direction: fc.constantFrom('ASC' as const, 'DESC' as const),
    page: fc.integer({ min: 1, max: 100_000 }),
    size: fc.constantFrom(...PAGE_SIZES),
    errorType: fc.string(),
    errorTitle: fc.string(),
    failedTask: fc.string(),
    screen: fc.constantFrom(...SCREENS),
    span: fc.constantFrom(...SPANS),
    run: fc.option(fc.string({ minLength: 1 }), { nil: null }),
    task: fc.option(fc.string({ minLength: 1 }), { nil: null }),
    tab: fc.option(fc.constantFrom(...RUN_TABS), { nil: null }),
    refresh: fc.constantFrom(...REFRESH_SECONDS),
  })
  .map(({ run, task, tab, refresh, screen, span, ...list }) => ({
    // Only what the URL keeps: custom bounds exist only for the custom range, a task only on a run page.
    list: { ...list, from: list.range === 'custom' ? list.from : '', to: list.range === 'custom' ? list.to : '' },
    run,
    task: run === null ? null : task,
    tab: run === null ? null : tab,
    refresh,
    // The insights page (and its span) only when no run is shown.
    screen: run === null ? screen : 'runs',
    span: run === null && screen === 'insights' ? span : '1d',
  }));

describe('view state in the URL', () => {
  it('round-trips every view through its query string', () => {
    fc.assert(
      fc.property(viewArb, (view) => {
        expect(parseView(formatView(view))).toEqual(view);
      }),
      { numRuns: 500 },
    );
  });

  it('writes the default view as an empty query string and leaves defaults out', () => {
    expect(formatView(DEFAULT_VIEW)).toBe('');
    expect(parseView('')).toEqual(DEFAULT_VIEW);
    expect(formatView({ ...DEFAULT_VIEW, list: { ...DEFAULT_VIEW.list, statuses: ['FAULTED'], sort: 'name', direction: 'ASC', page: 3 } })).toBe('?status=FAULTED&sort=name.asc&page=3');
  });

  it('reads any query string as a valid view (unknown values fall back to defaults)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('status', 'sort', 'page', 'size', 'range', 'refresh', 'run', 'task', 'tab', 'view', 'span', 'errorType', 'failedTask', 'q', 'match', 'x'), fc.string()), (params) => {
        const view = parseView(new URLSearchParams(params).toString());
        expect(view.list.statuses.every((s) => (STATUSES as readonly string[]).includes(s))).toBe(true);
        expect(SORT_KEYS).toContain(view.list.sort);
        expect(Number.isSafeInteger(view.list.page) && view.list.page >= 1).toBe(true);
        expect(PAGE_SIZES).toContain(view.list.size);
        expect(RANGES).toContain(view.list.range);
        expect(MATCHES).toContain(view.list.match);
        expect(REFRESH_SECONDS).toContain(view.refresh);
        expect(parseView(formatView(view))).toEqual(view);
      }),
      { numRuns: 500 },
    );
    expect(parseView('?page=-4&size=7&sort=drop.table&status=FAULTED,NOPE,RUNNING').list).toMatchObject({ page: 1, size: 25, sort: 'startDate', statuses: ['RUNNING', 'FAULTED'] });
  });
});

describe('filters sent to /graphql', () => {
  const now = Date.parse('2026-05-12T10:00:00Z');
  it('maps every list field to the contract filter operators', () => {
    const list = { ...DEFAULT_VIEW.list, name: 'order-intake', namespace: 'com.acme.orders', version: '1.0', match: 'exact' as const, text: '01KRDQ', payload: ' customer.name = José ', range: '1h' as const };
    expect(withStatuses(baseFilter(list, now), ['FAULTED', 'RUNNING'])).toEqual({
      name: { eq: 'order-intake' },
      namespace: { eq: 'com.acme.orders' },
      version: { eq: '1.0' },
      id: { contains: '01KRDQ' },
      input: { eq: [{ key: 'customer.name', value: 'José' }] },
      startDate: { gte: '2026-05-12T09:00:00.000Z' },
      status: { in: ['FAULTED', 'RUNNING'] },
    });
    expect(baseFilter({ ...list, range: 'custom', from: '2026-05-01T00:00:00Z', to: 'yesterday' }, now)['startDate']).toEqual({ gte: '2026-05-01T00:00:00Z' });
    expect(baseFilter(DEFAULT_VIEW.list, now)).toEqual({});
    // The insights page's drill-downs: an error's type and title, a task that faulted.
    expect(baseFilter({ ...DEFAULT_VIEW.list, errorType: 'urn:timeout', errorTitle: 'Timed out', failedTask: 'do/1/call' }, now)).toEqual({
      error: { type: { eq: 'urn:timeout' }, title: { eq: 'Timed out' } },
      taskExecutions: { taskPosition: { eq: 'do/1/call' }, status: { eq: 'FAULTED' } },
    });
  });

  it('matches name, namespace and version by prefix by default, anywhere or exactly on request (literal operators)', () => {
    const typed = { ...DEFAULT_VIEW.list, name: 'order*', namespace: 'com.acme', version: '1.' };
    expect(DEFAULT_VIEW.list.match).toBe('prefix');
    expect(baseFilter(typed, now)).toEqual({ name: { startsWith: 'order*' }, namespace: { startsWith: 'com.acme' }, version: { startsWith: '1.' } });
    expect(baseFilter({ ...typed, match: 'contains' }, now)).toEqual({ name: { contains: 'order*' }, namespace: { contains: 'com.acme' }, version: { contains: '1.' } });
    expect(formatView({ ...DEFAULT_VIEW, list: { ...typed, match: 'contains' } })).toBe('?name=order*&namespace=com.acme&version=1.&match=contains');
    // A link written before matching modes existed reads as a prefix match.
    expect(parseView('?name=order-intake').list.match).toBe('prefix');
  });

  it('reads a custom range bound without an offset in the zone times are shown in', () => {
    expect(toInstant('2026-05-12T10:00:00', 'utc')).toBe('2026-05-12T10:00:00.000Z');
    expect(toInstant('2026-05-12T10:00:00+05:30', 'local')).toBe('2026-05-12T04:30:00.000Z');
    // Node runs the suite in the machine's zone: local is whatever Date reads there.
    expect(toInstant('2026-05-12T10:00:00', 'local')).toBe(new Date(2026, 4, 12, 10, 0, 0).toISOString());
    expect(toInstant(' ', 'local')).toBe('');
    expect(toInstant('yesterday', 'utc')).toBe('yesterday');
  });

  it('reads key=value payload filters and rejects malformed ones', () => {
    expect(parsePayloadPair('a.b=1=2')).toEqual({ key: 'a.b', value: '1=2' });
    expect(parsePayloadPair('a=')).toEqual({ key: 'a', value: '' });
    for (const bad of ['', '=1', 'novalue', 'a..b=1', '.a=1', 'a.=1']) expect(parsePayloadPair(bad)).toBeNull();
    expect(isInstant('2026-05-12T09:14:03.512378+02:00')).toBe(true);
    expect(isInstant('2026-05-12T09:14')).toBe(false);
    expect(isInstant('2026-05-12')).toBe(false);
  });
});
