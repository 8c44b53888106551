// The normalizer's index bootstrap under least privilege: its OpenSearch user may read and write the normalized
// indices but not create them (opensearch-setup does). A stand-in for the security plugin in front of the real node
// refuses every index creation with 403; existing indices then count as present, a missing one is a clear error.
import { Client } from '@opensearch-project/opensearch';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { applyNormalizedIndices, normalizedIndexNames } from '../src/normalized-indices.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

describeOpenSearch('normalized indices under a user that may not create indices', () => {
  let ns: TestNamespace;
  let proxy: Server;
  let restricted: Client;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    const target = new URL(OPENSEARCH_URL);
    proxy = createServer((req, res) => {
      // PUT /<index> (no further path): what the security plugin refuses without indices:admin/create
      if (req.method === 'PUT' && /^\/[^/?]+(\?.*)?$/.test(req.url ?? '')) {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'security_exception', reason: 'no permissions for [indices:admin/create]' }, status: 403 }));
        return;
      }
      const upstream = httpRequest({ host: target.hostname, port: target.port || 9200, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    restricted = new Client({ node: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await restricted?.close();
    await new Promise((resolve) => proxy?.close(resolve));
  });

  it('existing indices are used; a missing one says to run opensearch-setup', async () => {
    const prefix = `${ns.prefix}lp-`;
    await expect(applyNormalizedIndices(restricted, prefix)).rejects.toThrow(`index ${normalizedIndexNames(prefix).workflowInstances} does not exist and this user may not create it: run init-job opensearch-setup`);
    expect((await applyNormalizedIndices(ns.client, prefix)).every((r) => r.action === 'created')).toBe(true);
    const again = await applyNormalizedIndices(restricted, prefix);
    expect(again.map((r) => r.action)).toEqual(again.map(() => 'unchanged'));
    expect(again.map((r) => r.name)).toContain(normalizedIndexNames(prefix).eventStore);
  });
});
