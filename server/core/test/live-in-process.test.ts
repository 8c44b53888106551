// The event-stream transport in process (app.fetch, as tests and embedders call it): the response streams (it is not
// buffered whole, which would never end), each batch a feed delivers is read once through the Reader with the
// changed ids and the subscription's filter, and cancelling the body gives the subscription slot back. The feed here
// is a hand-driven ChangeFeed: the backends' real feeds are tested against PostgreSQL and OpenSearch.
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { ChangeFeed, ChangeListener } from '../src/live/change-feed.js';
import { MemoryLog, RecordingReader, testConfig } from '@workflow-index/testkit';

class HandFeed implements ChangeFeed {
  listener: ChangeListener | null = null;
  async start(listener: ChangeListener): Promise<void> {
    this.listener = listener;
  }
  async stop(): Promise<void> {
    this.listener = null;
  }
}

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, text: { value: string }, pattern: RegExp): Promise<void> {
  const decoder = new TextDecoder();
  while (!pattern.test(text.value)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before ${pattern}: ${text.value}`);
    text.value += decoder.decode(value);
  }
}

describe('live updates in process', () => {
  it('streams the state on subscribe and each delivered batch, read once with the ids and the filter', async () => {
    const feed = new HandFeed();
    const reader = new RecordingReader();
    const app = createApp({ config: testConfig({ GRAPHQL_MAX_SUBSCRIPTIONS: '1' }), reader, logger: new MemoryLog().logger(), backend: 'test', changeFeed: feed });
    const subscribe = () =>
      app.fetch(new Request('http://localhost/graphql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify({ query: 'subscription { workflowInstanceChanged(filter: {name: "order-intake"}) { id status } }' }),
      }));
    const response = await subscribe();
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('content-encoding')).toBeNull();
    const body = response.body!.getReader();
    const text = { value: '' };
    await readUntil(body, text, /inst-b/);
    expect(reader.callsOf('listInstances')).toHaveLength(1);

    feed.listener?.({ kind: 'changed', ids: ['inst-a'] });
    await readUntil(body, text, /(event: next[\s\S]*){3}/);
    const read = reader.callsOf('listInstances')[1]!.query;
    expect(read.filter).toEqual({ kind: 'and', nodes: [{ kind: 'string', field: 'id', predicate: { op: 'in', values: ['inst-a'] } }, { kind: 'string', field: 'name', predicate: { op: 'eq', value: 'order-intake' } }] });

    // The one slot of GRAPHQL_MAX_SUBSCRIPTIONS is taken, until the stream is cancelled.
    expect((await subscribe()).status).toBe(429);
    await body.cancel();
    await expect.poll(async () => {
      const again = await subscribe();
      await again.body?.cancel();
      return again.status;
    }).toBe(200);
    await app.dispose();
  });
});
