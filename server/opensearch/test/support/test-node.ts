// The real OpenSearch node the tests run against (`npm run opensearch -- start`; .ci/run starts it). Each test file
// works under its own random name prefix (indices, templates, pipeline) and removes everything under it afterwards,
// so files running in parallel never see each other's documents. Outside CI a missing node skips the suites with a
// message; with CI=true it fails. Point it elsewhere with WI_TEST_OPENSEARCH_URL.
import { Client } from '@opensearch-project/opensearch';
import { randomBytes } from 'node:crypto';

export const OPENSEARCH_URL = process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200';

let reachable: boolean | undefined;
export async function openSearchReachable(): Promise<boolean> {
  if (reachable !== undefined) return reachable;
  try {
    const response = await fetch(`${OPENSEARCH_URL}/_cluster/health`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`GET /_cluster/health answered ${response.status}`);
    reachable = true;
  } catch (error) {
    const reason = (error as Error).message;
    if (process.env['CI'] === 'true') throw new Error(`OpenSearch is required in CI but does not answer at ${OPENSEARCH_URL}: ${reason}`);
    console.warn(`[skip] OpenSearch suites skipped: no node at ${OPENSEARCH_URL} (${reason}). Start one with \`npm run opensearch -- start\` or set WI_TEST_OPENSEARCH_URL.`);
    reachable = false;
  }
  return reachable;
}

export interface TestNamespace {
  /** Lower-case name prefix for every object this test file creates (`wi-test-<hex>-`). */
  readonly prefix: string;
  readonly client: Client;
  /** Makes written documents searchable now. */
  refresh(): Promise<void>;
  /** Deletes the indices, templates and pipeline under the prefix and closes the client. */
  drop(): Promise<void>;
}

/** A namespace on the shared node, or on the nodes given (a test cluster, support/test-cluster.ts). */
export function createTestNamespace(nodes: readonly string[] = [OPENSEARCH_URL]): TestNamespace {
  const prefix = `wi-test-${randomBytes(4).toString('hex')}-`;
  const client = new Client({ nodes: [...nodes] });
  return {
    prefix,
    client,
    refresh: async () => {
      await client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh`, querystring: { allow_no_indices: 'true' } });
    },
    drop: async () => {
      try {
        await client.transport.request({ method: 'DELETE', path: `/${prefix}*`, querystring: { allow_no_indices: 'true', expand_wildcards: 'all' } }, { ignore: [404] });
        await client.transport.request({ method: 'DELETE', path: `/_index_template/${prefix}*` }, { ignore: [404] });
        await client.transport.request({ method: 'DELETE', path: `/_ingest/pipeline/${prefix}*` }, { ignore: [404] });
      } finally {
        await client.close();
      }
    },
  };
}

/** The request paths a client of the namespace sends while `run` runs (which indices a reader searched). */
export async function requestPathsOf(ns: TestNamespace, run: () => Promise<unknown>): Promise<string[]> {
  const paths: string[] = [];
  const transport = ns.client.transport as unknown as { request: (...args: unknown[]) => unknown };
  const request = transport.request;
  transport.request = (...args: unknown[]) => {
    paths.push(String((args[0] as { path: string }).path));
    return request.apply(ns.client.transport, args);
  };
  try {
    await run();
  } finally {
    transport.request = request;
  }
  return paths;
}
