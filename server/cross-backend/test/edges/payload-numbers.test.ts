// Same answers on both backends: payload numbers beyond PostgreSQL's numeric range (exponent > 131071 digits before the point, or more than
// 16383 after it) — PostgreSQL's jsonb refuses them, the OpenSearch normalizer's numericText (jsonb-text.ts) expands
// them. Do both backends serve the same runs, the same inputData, and answer a JSON filter on them the same?
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothAvailable, loadBackendPair, type BackendPair, summary, workflowStarted } from './backend-pair.js';

const available = await bothAvailable();

describe.skipIf(!available)('payload numbers beyond numeric', () => {
  let pair: BackendPair;
  beforeAll(async () => {
    pair = await loadBackendPair('pnum', [
      workflowStarted('pn-ok', '2026-05-12T09:00:00.000001Z', { input: { n: 1 } }),
      workflowStarted('pn-big', '2026-05-12T09:00:01.000001Z', { input: { n: 0 } }).replace('{"n":0}', '{"n":1e131072}'),
      workflowStarted('pn-tiny', '2026-05-12T09:00:02.000001Z', { input: { n: 0 } }).replace('{"n":0}', '{"n":1e-16384}'),
      workflowStarted('pn-edge', '2026-05-12T09:00:03.000001Z', { input: { n: 0 } }).replace('{"n":0}', '{"n":-1E+2,"m":100e-2,"z":-0.0,"e":0.000001e-3}'),
    ]);
  }, 180_000);
  afterAll(async () => {
    await pair?.close();
  });

  it('the same runs with the same inputData', async () => {
    const q = `{ getWorkflowInstances(orderBy: {id: ASC}) { id inputData } }`;
    const { postgresql, opensearch } = await pair.send(q);
    const shorten = (s: string): string => s.replace(/0{50,}/g, (z) => `0×${z.length}`);
    expect(shorten(summary(opensearch))).toBe(shorten(summary(postgresql)));
  });

  it('indexStatus counts the same ingest errors', async () => {
    const q = `{ indexStatus { ingestErrors instances } }`;
    const { postgresql, opensearch } = await pair.send(q);
    expect(summary(opensearch)).toBe(summary(postgresql));
  });
});
