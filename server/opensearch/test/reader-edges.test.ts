// The OpenSearch Reader on the cases the conformance suite does not reach: offsets beyond the result window (a small
// window here stands for OpenSearch's 10,000), executions of a page beyond a window, JSON filters on payloads whose
// leaves are capped or too long to be indexed, wildcard syntax and astral characters in like patterns, ingestion
// statistics, and an outage or missing indices as BackendUnavailableError.
import { Client } from '@opensearch-project/opensearch';
import fc from 'fast-check';
import { afterAll, describe, expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { BackendUnavailableError } from '@workflow-index/core';
import type { InstanceFilter, SimpleInstanceFilter, SimpleInstanceSortField, ListQuery, SortKey } from '@workflow-index/core';
import { MAX_LEAVES } from '../src/json-leaves.js';
import { createOpenSearchReader, type OpenSearchReader } from '../src/reader/opensearch-reader.js';
import { classifyResponse } from '../src/reader/search-requests.js';
import { likeDsl } from '../src/reader/filter-dsl.js';
import { parseLikePattern } from '@workflow-index/core';
import { eventLines, loadNormalized } from './support/normalized-store.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';
const T0 = 1778577243;

function run(id: string, i: number, extra: Record<string, unknown> = {}, done = true): Record<string, unknown>[] {
  const name = ['alpha', 'beta', 'gamma'][i % 3];
  return [
    { instanceId: id, eventType: `${WF}started.v1`, timestamp: T0 + (i % 5), startTime: T0 + (i % 5), workflowName: name, workflowNamespace: i % 4 === 0 ? undefined : 'ns', status: 'RUNNING', ...extra },
    ...(done ? [{ instanceId: id, eventType: `${WF}completed.v1`, timestamp: T0 + 100 + i, endTime: T0 + 100 + i, status: 'COMPLETED' }] : []),
  ];
}

const MANY_TASKS = 'rd-many-tasks';
const manyTasks = Array.from({ length: 20 }, (_, k) => [
  { instanceId: MANY_TASKS, eventType: `${TASK}started.v1`, timestamp: T0 + 10 + k, startTime: T0 + 10 + k, taskPosition: `do/${k}/t`, taskName: `t${k}`, status: 'RUNNING' },
  { instanceId: MANY_TASKS, eventType: `${TASK}completed.v1`, timestamp: T0 + 10.5 + k, endTime: T0 + 10.5 + k, taskPosition: `do/${k}/t`, taskName: `t${k}`, status: 'COMPLETED' },
]).flat();

// More leaves than the normalizer indexes: a leaf beyond the cap is only in the payload text.
const bigInput = Object.fromEntries(Array.from({ length: MAX_LEAVES + 200 }, (_, k) => [`k${k}`, k]));
const longText = `long-${'x'.repeat(9000)}`;

// Long error details for like patterns beyond the wildcard limit (matched by the script), over a small alphabet with a
// character beyond U+FFFF, so random patterns match some of them.
const GLOB_ALPHABET = ['y', 'z', '😀'];
const details = fc.sample(fc.array(fc.constantFrom(...GLOB_ALPHABET), { minLength: 150, maxLength: 400 }).map((cs) => cs.join('')), { numRuns: 5, seed: 9 });
const globRuns = details.flatMap((detail, k) => [
  ...run(`rd-glob-${k}`, 50 + k, {}, false),
  { instanceId: `rd-glob-${k}`, eventType: `${WF}faulted.v1`, timestamp: T0 + 200, endTime: T0 + 200, status: 'FAULTED', error: { title: 'glob', detail } },
]);

const EVENTS = [
  ...globRuns,
  ...Array.from({ length: 40 }, (_, i) => run(`rd-${String(i).padStart(3, '0')}`, i, {}, i % 6 !== 0)).flat(),
  ...run(MANY_TASKS, 41),
  ...manyTasks,
  ...run('rd-big-payload', 42, { input: bigInput }),
  ...run('rd-long-leaf', 43, { input: { text: longText, n: 1 } }),
  ...run('rd-astral', 44, { workflowName: 'a😀b', workflowNamespace: 'x*y?z\\w[.]' }),
  ...run('rd-astral-two', 45, { workflowName: 'a😀😀b', workflowNamespace: 'xAyBz\\w[.]' }),
];

const query = (over: Partial<ListQuery<SimpleInstanceFilter, SimpleInstanceSortField>>): ListQuery<SimpleInstanceFilter, SimpleInstanceSortField> => ({
  filter: null, orderBy: [], limit: 1000, offset: 0, payloads: false, ...over,
});

describeOpenSearch('OpenSearch reader edges', () => {
  let ns: TestNamespace;
  let reader: OpenSearchReader;
  let narrow: OpenSearchReader;

  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    await loadNormalized(ns.client, ns.prefix, eventLines(EVENTS));
    reader = createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: ns.prefix });
    narrow = createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: ns.prefix, maxResultWindow: 7 });
  }, 120_000);

  afterAll(async () => {
    await reader?.close();
    await narrow?.close();
  });

  const ORDERS: readonly SortKey<SimpleInstanceSortField>[][] = [
    [],
    [{ field: 'name', direction: 'ASC' }],
    [{ field: 'endDate', direction: 'ASC' }],
    [{ field: 'endDate', direction: 'DESC' }, { field: 'name', direction: 'DESC' }],
    [{ field: 'namespace', direction: 'DESC' }, { field: 'startDate', direction: 'ASC' }],
  ];

  it('offsets and limits beyond the result window answer as a plain offset would (any order, with after)', async () => {
    for (const orderBy of ORDERS) {
      const all = (await reader.listInstances(query({ orderBy }))).map((r) => r.id);
      expect(all.length).toBe(50);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 55 }), fc.integer({ min: 0, max: 30 }), async (offset, limit) => {
          const page = await narrow.listInstances(query({ orderBy, offset, limit }));
          expect(page.map((r) => r.id)).toEqual(all.slice(offset, offset + limit));
        }),
        { numRuns: 25 },
      );
    }
  });

  it('continues after a keyset position and an offset beyond the window', async () => {
    const orderBy: SortKey<SimpleInstanceSortField>[] = [{ field: 'endDate', direction: 'DESC' }];
    const all = await reader.listInstances(query({ orderBy }));
    // The position of row 5 (endDate, id): nulls come last, so walking past them must work too.
    const position = { values: [all[5]!.endDate, all[5]!.id] };
    const page = await narrow.listInstances(query({ orderBy, after: position, offset: 9, limit: 12 }));
    expect(page.map((r) => r.id)).toEqual(all.slice(15, 27).map((r) => r.id));
    const lastNull = all.findLast((r) => r.endDate === null)!;
    expect(await narrow.listInstances(query({ orderBy, after: { values: [null, lastNull.id] } }))).toEqual([]);
  });

  it('continues after every row, in every order, with and without an offset (search_after, or the range query when the position has a null; in growing time windows beside a time position)', async () => {
    // Windows from 1 µs: the ties at the position's time first, then spans grown by what each window found.
    const client = new Client({ node: OPENSEARCH_URL });
    const windowed = createOpenSearchReader({ client, prefix: ns.prefix, positionSpanMicros: 1n });
    let requests = 0;
    client.on('response', () => requests++);
    try {
      for (const orderBy of [...ORDERS, [{ field: 'startDate', direction: 'DESC' }, { field: 'name', direction: 'ASC' }]] as SortKey<SimpleInstanceSortField>[][]) {
        const all = await reader.listInstances(query({ orderBy }));
        const keys = [...(orderBy.length === 0 ? [{ field: 'startDate' as const }] : orderBy), { field: 'id' as const }];
        for (const [i, row] of all.entries()) {
          const after = { values: keys.map((k) => row[k.field] ?? null) };
          for (const r of [reader, windowed]) {
            const next = await r.listInstances(query({ orderBy, after, limit: 7 }));
            expect(next.map((x) => x.id), `${JSON.stringify(orderBy)} after row ${i}`).toEqual(all.slice(i + 1, i + 8).map((x) => x.id));
            const skipped = await r.listInstances(query({ orderBy, after, offset: 3, limit: 7 }));
            expect(skipped.map((x) => x.id), `${JSON.stringify(orderBy)} after row ${i}, offset 3`).toEqual(all.slice(i + 4, i + 11).map((x) => x.id));
          }
        }
      }
      // Newest first after the newest run: more than one window before the page fills (the span starts at 1 µs).
      const newest = (await reader.listInstances(query({ limit: 1 })))[0]!;
      requests = 0;
      const page = await windowed.listInstances(query({ after: { values: [newest.startDate, newest.id] }, limit: 30 }));
      expect(page.map((x) => x.id)).toEqual((await reader.listInstances(query({ offset: 1, limit: 30 }))).map((x) => x.id));
      expect(requests).toBeGreaterThan(1);
      // Oldest first after the oldest run: the mirror image, windows after the position.
      const oldestFirst: SortKey<SimpleInstanceSortField>[] = [{ field: 'startDate', direction: 'ASC' }];
      const oldest = (await reader.listInstances(query({ orderBy: oldestFirst, limit: 1 })))[0]!;
      requests = 0;
      const ascending = await windowed.listInstances(query({ orderBy: oldestFirst, after: { values: [oldest.startDate, oldest.id] }, limit: 30 }));
      expect(ascending.map((x) => x.id)).toEqual((await reader.listInstances(query({ orderBy: oldestFirst, offset: 1, limit: 30 }))).map((x) => x.id));
      expect(requests).toBeGreaterThan(1);
    } finally {
      await windowed.close();
    }
  });

  it('reads every execution of a page even beyond one window, chronologically', async () => {
    const tasks = await narrow.tasksOfInstances([MANY_TASKS, 'rd-001', 'unknown'], { payloads: false });
    expect(tasks.get(MANY_TASKS)!.map((t) => t.taskName)).toEqual(Array.from({ length: 20 }, (_, k) => `t${k}`));
    expect(tasks.get('rd-001')).toEqual([]);
    expect(tasks.get('unknown')).toEqual([]);
    const withTasks = await narrow.getInstance(MANY_TASKS, { payloads: false, tasks: { payloads: true } });
    expect(withTasks?.tasks?.map((t) => t.taskName)).toEqual(Array.from({ length: 20 }, (_, k) => `t${k}`));
  });

  it('matches JSON filters beyond the capped leaves and on leaves too long to index, and their negation', async () => {
    const json = (path: string[], value: string): SimpleInstanceFilter => ({ kind: 'json', field: 'input', path, value });
    const ids = async (filter: SimpleInstanceFilter): Promise<string[]> => (await reader.listInstances(query({ filter, orderBy: [{ field: 'id', direction: 'ASC' }] }))).map((r) => r.id);
    expect(await ids(json(['k5'], '5'))).toEqual(['rd-big-payload']); // indexed leaf
    expect(await ids(json([`k${MAX_LEAVES + 150}`], `${MAX_LEAVES + 150}.0`))).toEqual(['rd-big-payload']); // beyond the cap
    expect(await ids(json([`k${MAX_LEAVES + 150}`], '7'))).toEqual([]);
    expect(await ids(json(['text'], longText))).toEqual(['rd-long-leaf']);
    expect(await ids(json(['text'], `${longText}y`))).toEqual([]);
    const negated = await ids({ kind: 'not', node: json([`k${MAX_LEAVES + 150}`], `${MAX_LEAVES + 150}`) });
    expect(negated).not.toContain('rd-big-payload');
    expect(negated.length).toBe(49);
  });

  it('sends a JSON filter page with its checks in one request when no payload is undecided, and reads the undecided ones otherwise', async () => {
    const client = new Client({ node: OPENSEARCH_URL });
    const counted = createOpenSearchReader({ client, prefix: ns.prefix });
    let requests = 0;
    client.on('response', () => requests++);
    const idsAndRequests = async (list: () => Promise<{ id: string }[]>): Promise<[string[], number]> => {
      requests = 0;
      const rows = await list();
      return [rows.map((r) => r.id), requests];
    };
    const byId: SortKey<SimpleInstanceSortField>[] = [{ field: 'id', direction: 'ASC' }];
    try {
      // Only the input of rd-big-payload is capped: a filter on the outputs has nothing to check.
      const output: SimpleInstanceFilter = { kind: 'json', field: 'output', path: ['k5'], value: '5' };
      expect(await idsAndRequests(() => counted.listInstances(query({ filter: output, orderBy: byId })))).toEqual([[], 1]);
      const outputExists: InstanceFilter = { kind: 'jsonOp', field: 'output', path: ['k5'], predicate: { op: 'exists', value: false } };
      const [none, one] = await idsAndRequests(() => counted.listInstances({ ...query({ orderBy: byId, limit: 3 }), filter: outputExists }));
      expect([none.length, one]).toEqual([3, 1]);
      // The input's check reads rd-big-payload (capped, and no indexed leaf says it has k…=7), then the page.
      const input: SimpleInstanceFilter = { kind: 'json', field: 'input', path: [`k${MAX_LEAVES + 150}`], value: '7' };
      expect(await idsAndRequests(() => counted.listInstances(query({ filter: input, orderBy: byId })))).toEqual([[], 3]);
      const inputExists: InstanceFilter = { kind: 'jsonOp', field: 'input', path: [`k${MAX_LEAVES + 150}`], predicate: { op: 'exists', value: true } };
      expect(await idsAndRequests(() => counted.listInstances({ ...query({ orderBy: byId }), filter: inputExists }))).toEqual([['rd-big-payload'], 3]);
    } finally {
      await counted.close();
    }
  });

  it('like patterns: wildcard syntax in literals is literal, ? is one code point (astral too)', async () => {
    const like = likeFilter;
    const ids = async (filter: SimpleInstanceFilter): Promise<string[]> => (await reader.listInstances(query({ filter, orderBy: [{ field: 'id', direction: 'ASC' }] }))).map((r) => r.id);
    expect(await ids(like('name', [{ kind: 'literal', text: 'a' }, { kind: 'one' }, { kind: 'literal', text: 'b' }]))).toEqual(['rd-astral']);
    expect(await ids(like('name', [{ kind: 'literal', text: 'a' }, { kind: 'one' }, { kind: 'one' }, { kind: 'literal', text: 'b' }]))).toEqual(['rd-astral-two']);
    expect(await ids(like('namespace', [{ kind: 'literal', text: 'x*y?z\\w[.]' }]))).toEqual(['rd-astral']);
    expect(await ids(like('namespace', [{ kind: 'literal', text: 'x*' }, { kind: 'any' }]))).toEqual(['rd-astral']);
    expect(await ids(like('namespace', [{ kind: 'any' }, { kind: 'literal', text: '\\w[.]' }]))).toEqual(['rd-astral', 'rd-astral-two']);
    expect(await ids({ kind: 'string', field: 'namespace', predicate: { op: 'contains', value: 'y?z' } })).toEqual(['rd-astral']);
    expect(await ids({ kind: 'string', field: 'namespace', predicate: { op: 'endsWith', value: '[.]' } })).toEqual(['rd-astral', 'rd-astral-two']);
  });

  it('like patterns of any length (wildcard query up to the limit, script beyond it) match as a code-point glob', async () => {
    type Segment = { kind: 'literal'; text: string } | { kind: 'any' } | { kind: 'one' };
    const segment = fc.oneof(
      // Slices of the stored details (so patterns match), or random text over their alphabet.
      { weight: 4, arbitrary: fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 120 }), fc.integer({ min: 40, max: 150 })).map(([d, at, n]): Segment => ({ kind: 'literal', text: [...details[d]!].slice(at, at + n).join('') || 'y' })) },
      { weight: 2, arbitrary: fc.array(fc.constantFrom(...GLOB_ALPHABET), { minLength: 1, maxLength: 30, size: 'max' }).map((cs): Segment => ({ kind: 'literal', text: cs.join('') })) },
      { weight: 1, arbitrary: fc.constant<Segment>({ kind: 'any' }) },
      { weight: 1, arbitrary: fc.constant<Segment>({ kind: 'one' }) },
    );
    // A long window of one detail with some characters replaced by `?` and some runs by `*`: long patterns that match.
    const longGlob = fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 100 }), fc.integer({ min: 201, max: 300 }), fc.array(fc.nat({ max: 299 }), { maxLength: 12 }), fc.array(fc.nat({ max: 299 }), { maxLength: 4 }))
      .map(([d, at, n, ones, anys]): Segment[] => [...details[d]!].slice(at, at + n).map((c, i): Segment => (anys.includes(i) ? { kind: 'any' } : ones.includes(i) ? { kind: 'one' } : { kind: 'literal', text: c })));
    const reference = (pattern: readonly Segment[]): RegExp =>
      new RegExp(`^${pattern.map((p) => (p.kind === 'literal' ? p.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : p.kind === 'any' ? '.*' : '.')).join('')}$`, 'su');
    const expected = (pattern: readonly Segment[]): string[] => details.flatMap((d, k) => (reference(pattern).test(d) ? [`rd-glob-${k}`] : []));
    let matched = 0;
    let long = 0;
    let longMatched = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(segment, { minLength: 1, maxLength: 6, size: 'max' }), longGlob), fc.boolean(), async (pattern, wrap) => {
        // Wrapped in `*…*` half of the time, so long patterns match too.
        const full: Segment[] = wrap ? [{ kind: 'any' }, ...pattern, { kind: 'any' }] : pattern;
        const isLong = full.reduce((n, p) => n + (p.kind === 'literal' ? [...p.text].length : 1), 0) > 200;
        if (isLong) long++;
        const rows = await reader.listInstances(query({ filter: likeFilter('error.detail', full), orderBy: [{ field: 'id', direction: 'ASC' }] }));
        expect(rows.map((r) => r.id)).toEqual(expected(full));
        if (rows.length > 0) matched++;
        if (rows.length > 0 && isLong) longMatched++;
      }),
      { numRuns: 80, seed: 4 },
    );
    expect(long).toBeGreaterThan(5);
    expect(longMatched).toBeGreaterThan(0);
    expect(matched).toBeGreaterThan(3);
    // A literal far longer than any wildcard Lucene builds: no error, the exact answer.
    const hit = [...details[0]!].slice(10, 1000).join('');
    const contains = await reader.listInstances(query({ filter: { kind: 'string', field: 'error.detail', predicate: { op: 'contains', value: hit } } }));
    expect(contains.map((r) => r.id)).toEqual(['rd-glob-0']);
  });

  it('ingestion statistics count served instances, placeholders, executions and raw events', async () => {
    const stats = await reader.ingestionStats();
    expect(stats.instances).toBe(50);
    expect(stats.placeholderInstances).toBe(0);
    expect(stats.taskExecutions).toBe(20);
    expect(stats.rawEvents['workflow']! + stats.rawEvents['task']!).toBe(EVENTS.length);
    expect(stats.rawEvents['task']).toBe(40);
    expect(stats.ingestErrors).toBe(0);
    expect(stats.newestEventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('missing normalized indices: ping and queries reject with BackendUnavailableError naming opensearch-setup', async () => {
    const empty = createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: `${ns.prefix}missing-` });
    try {
      await expect(empty.ping(5000)).rejects.toThrow(BackendUnavailableError);
      await expect(empty.ping(5000)).rejects.toThrow(/opensearch-setup/);
      await expect(empty.listInstances(query({}))).rejects.toThrow(BackendUnavailableError);
    } finally {
      await empty.close();
    }
  });

  it('an unreachable node: ping and queries reject with BackendUnavailableError', async () => {
    const down = createOpenSearchReader({ client: new Client({ node: 'http://127.0.0.1:1' }), prefix: ns.prefix });
    try {
      await expect(down.ping(2000)).rejects.toThrow(BackendUnavailableError);
      await expect(down.getInstance('rd-001', { payloads: false })).rejects.toThrow(BackendUnavailableError);
      await expect(down.ingestionStats()).rejects.toThrow(BackendUnavailableError);
    } finally {
      await down.close();
    }
  });
});

function likeFilter(field: 'name' | 'namespace' | 'error.detail', pattern: readonly ({ kind: 'literal'; text: string } | { kind: 'any' } | { kind: 'one' })[]): SimpleInstanceFilter {
  return { kind: 'string', field, predicate: { op: 'like', pattern } };
}

// The node's refusals of a query too wide for it (the core's filter limits keep filters within them at their defaults;
// this is the safety net for raised limits or a node configured lower): BAD_USER_INPUT, never an internal error.
describe('classifyResponse: refusals of a too wide query', () => {
  const shardFailure = (type: string, reason: string, status = 400) =>
    classifyResponse(status, {
      type: 'search_phase_execution_exception',
      reason: 'all shards failed',
      root_cause: [{ type: 'query_shard_exception', reason: `failed to create query: ${reason}` }],
      caused_by: { type: 'query_shard_exception', reason: `failed to create query: ${reason}`, caused_by: { type, reason } },
    }, 'listInstances');
  const codeOf = (error: Error) => (error as { extensions?: { code?: unknown } }).extensions?.code;

  it('too_many_clauses, too_many_nested_clauses and max_terms_count are BAD_USER_INPUT naming the limit', () => {
    for (const error of [
      shardFailure('too_many_clauses', 'maxClauseCount is set to 1024'),
      shardFailure('too_many_nested_clauses', 'Query contains too many nested clauses; maxClauseCount is set to 1024', 500),
    ]) {
      expect(codeOf(error)).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/^filter is too wide for the OpenSearch backend \(more clauses than indices\.query\.bool\.max_clause_count allows\)/);
    }
    const terms = shardFailure(
      'illegal_argument_exception',
      'The number of terms [70000] used in the Terms Query request has exceeded the allowed maximum of [65536]. This maximum can be set by changing the [index.max_terms_count] index level setting.',
    );
    expect(codeOf(terms)).toBe('BAD_USER_INPUT');
    expect(terms.message).toMatch(/index\.max_terms_count/);
    // Other failures stay internal errors (with OpenSearch's reason for the log).
    const other = shardFailure('illegal_argument_exception', 'something else');
    expect(codeOf(other)).toBeUndefined();
    expect(other.message).toMatch(/^OpenSearch listInstances failed with HTTP 400/);
  });
});

describe('likeDsl: short patterns whose automaton explodes go to the script', () => {
  const kind = (pattern: string): string => {
    const q = likeDsl('name', parseLikePattern(pattern)) as Record<string, unknown>;
    return JSON.stringify(q).includes('"script"') ? 'script' : Object.keys(q)[0]!;
  };
  it('8 or more ? after a * and a literal: script; fewer, or no literal before them: wildcard', () => {
    expect(kind(`*X${'?'.repeat(13)}`)).toBe('script');
    expect(kind(`*X${'?'.repeat(8)}`)).toBe('script');
    expect(kind(`*X${'?'.repeat(12)}*`)).toBe('script');
    expect(kind('*????????-????-????-????-????????????')).toBe('script');
    expect(kind(`a*b?c?d?e?f?g?h?i?`)).toBe('script');
    expect(kind(`*X${'?'.repeat(7)}`)).toBe('wildcard');
    expect(kind(`*${'?'.repeat(30)}`)).toBe('wildcard');
    expect(kind(`X${'?'.repeat(30)}`)).toBe('wildcard');
    expect(kind(`${'?'.repeat(30)}X*`)).toBe('wildcard');
    expect(kind('abc*')).toBe('prefix');
  });
});
