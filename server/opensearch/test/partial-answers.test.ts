// A search answered with some shards failed is never served as a whole answer (reader/search-requests.ts): it is sent
// again, and a second partial answer is an error. On a cluster this happens when a node dies between a search's query
// and fetch phases (cluster.test.ts); here, on the real single node, one of two indices fails its shard every time (a
// range bound its long field cannot parse), so the retry meets the same partial answer and the search fails.
import { BackendUnavailableError } from '@workflow-index/core';
import { expect } from 'vitest';
import { SearchRequests } from '../src/reader/search-requests.js';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';

describeOpenSearch('partial answers (real OpenSearch node)', () => {
  it('a search with a failed shard is sent again, then fails; the other index\'s hits are never returned', async ({ namespace: ns }) => {
    const [numbers, words] = [`${ns.prefix}numbers`, `${ns.prefix}words`];
    await ns.client.transport.request({ method: 'PUT', path: `/${numbers}`, body: { mappings: { properties: { n: { type: 'long' } } } } });
    await ns.client.transport.request({ method: 'PUT', path: `/${words}`, body: { mappings: { properties: { n: { type: 'keyword' } } } } });
    await ns.client.transport.request({ method: 'PUT', path: `/${numbers}/_doc/1`, querystring: { refresh: 'true' }, body: { n: 1 } });
    await ns.client.transport.request({ method: 'PUT', path: `/${words}/_doc/1`, querystring: { refresh: 'true' }, body: { n: 'b' } });
    const body = { query: { range: { n: { gte: 'a' } } }, size: 10 };

    // What the node answers: the words index's hit, with the numbers index's shard failed.
    const raw = (await ns.client.transport.request({ method: 'POST', path: `/${numbers},${words}/_search`, body })).body as { _shards: { failed: number }; hits: { hits: unknown[] } };
    expect(raw._shards.failed).toBe(1);
    expect(raw.hits.hits).toHaveLength(1);

    const sent: string[] = [];
    ns.client.on('request', (_error, event) => sent.push(String(event?.meta.request.params.path)));
    const requests = new SearchRequests(ns.client, 10_000);
    const outcome = await requests.search(`${numbers},${words}`, body, 'partial test').then(
      (response) => response,
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(BackendUnavailableError);
    expect((outcome as Error).message).toMatch(/^OpenSearch could not search 1 of 2 shards \(partial test\): /);
    expect(sent.filter((path) => path.endsWith('/_search'))).toHaveLength(2);

    const msearch = await requests.msearch([{ index: `${numbers},${words}`, body }], 'partial msearch').then(
      (response) => response,
      (error: unknown) => error,
    );
    expect(msearch).toBeInstanceOf(BackendUnavailableError);
  });
});
