// Same answers on both backends: JSON filters at their edges on both backends — keys holding the leaves' path separator (U+001F), payload
// strings beyond the keyword limit, numbers at double-precision edges, booleans, nulls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothAvailable, codes, loadBackendPair, type BackendPair, summary, workflowStarted } from './backend-pair.js';

const available = await bothAvailable();

const LIST = `query ($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $filter, orderBy: {id: ASC}) { id } }`;
const LONG = 'y'.repeat(9000);
const LONG_KEY = 'k'.repeat(9000);

describe.skipIf(!available)('JSON filters at their edges', () => {
  let pair: BackendPair;
  beforeAll(async () => {
    // Numbers are written into the event line as raw JSON text (JSON.stringify would round them to doubles).
    const numbers = '{"big":9007199254740993,"huge":1E308,"tenth":0.10,"negzero":-0.0,"flag":true,"flagText":"true","nothing":null,"neg":-0.5}';
    pair = await loadBackendPair('jsonedge', [
      workflowStarted('inst-nested', '2026-05-12T09:00:00.000001Z', { input: { a: { b: 'x' } } }),
      workflowStarted('inst-sep', '2026-05-12T09:00:01.000001Z', { input: { 'a\u001fb': 'x' } }),
      workflowStarted('inst-long', '2026-05-12T09:00:02.000001Z', { input: { s: LONG, t: 'short' } }),
      workflowStarted('inst-longkey', '2026-05-12T09:00:04.000001Z', { input: { [LONG_KEY]: 7 } }),
      workflowStarted('inst-num', '2026-05-12T09:00:03.000001Z', { input: { placeholder: 0 } }).replace('{"placeholder":0}', numbers),
    ]);
  }, 180_000);
  afterAll(async () => {
    await pair?.close();
  });

  const cases: [string, Record<string, unknown>][] = [
    ['eq key a.b (payload key "a\\u001fb" must not match)', { input: { eq: [{ key: 'a.b', value: 'x' }] } }],
    ['eq key "a\\u001fb" (nested a.b must not match)', { input: { eq: [{ key: 'a\u001fb', value: 'x' }] } }],
    ['exists key a.b', { input: { exists: [{ key: 'a.b', value: true }] } }],
    ['contains on a 9,000-character string', { input: { contains: [{ key: 's', value: 'yyy' }] } }],
    ['gt (text) on a 9,000-character string', { input: { gt: [{ key: 's', value: 'a' }] } }],
    ['lt (text) on a 9,000-character string', { input: { lt: [{ key: 's', value: 'z' }] } }],
    ['eq with the 9,000-character string', { input: { eq: [{ key: 's', value: LONG }] } }],
    ['ne with the 9,000-character string', { input: { ne: [{ key: 's', value: LONG }] } }],
    ['in with the 9,000-character string', { input: { in: [{ key: 's', values: [LONG, 'other'] }] } }],
    ['exists on a 9,000-character key', { input: { exists: [{ key: LONG_KEY, value: true }] } }],
    ['gt on a number under a 9,000-character key', { input: { gt: [{ key: LONG_KEY, value: '1' }] } }],
    ['eq on a number under a 9,000-character key', { input: { eq: [{ key: LONG_KEY, value: '7' }] } }],
    ['eq 2^53+1 exactly', { input: { eq: [{ key: 'big', value: '9007199254740993' }] } }],
    ['eq 2^53 (must not match 2^53+1)', { input: { eq: [{ key: 'big', value: '9007199254740992' }] } }],
    ['gt 2^53', { input: { gt: [{ key: 'big', value: '9007199254740992' }] } }],
    ['lte 9.007199254740993e15', { input: { lte: [{ key: 'big', value: '9.007199254740993e15' }] } }],
    ['eq 1e308', { input: { eq: [{ key: 'huge', value: '1e308' }] } }],
    ['gte 1.7976931348623157e308 on 1E308', { input: { gte: [{ key: 'huge', value: '1.7976931348623157e308' }] } }],
    ['eq 0.1 on 0.10', { input: { eq: [{ key: 'tenth', value: '0.1' }] } }],
    ['eq 0 on -0.0', { input: { eq: [{ key: 'negzero', value: '0' }] } }],
    ['lt 0 on -0.0', { input: { lt: [{ key: 'negzero', value: '0' }] } }],
    ['gt -0.51 on -0.5', { input: { gt: [{ key: 'neg', value: '-0.51' }] } }],
    ['eq true on a boolean', { input: { eq: [{ key: 'flag', value: 'true' }] } }],
    ['eq true on the string "true"', { input: { eq: [{ key: 'flagText', value: 'true' }] } }],
    ['ne true on the string "true"', { input: { ne: [{ key: 'flagText', value: 'true' }] } }],
    ['exists on a JSON null', { input: { exists: [{ key: 'nothing', value: true }] } }],
    ['ne on a JSON null', { input: { ne: [{ key: 'nothing', value: 'x' }] } }],
    ['eq "null" on a JSON null', { input: { eq: [{ key: 'nothing', value: 'null' }] } }],
    ['not eq on a missing path', { not: { input: { eq: [{ key: 'missing', value: 'x' }] } } }],
  ];
  for (const [name, filter] of cases) {
    it(`${name}: same answer`, async () => {
      const { postgresql, opensearch } = await pair.send(LIST, { filter });
      expect(codes(postgresql)).toEqual([]);
      expect(summary(opensearch)).toBe(summary(postgresql));
    });
  }
});
