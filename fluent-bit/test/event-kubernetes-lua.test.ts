// fluent-bit/postgresql/event-kubernetes.lua executed for real under luajit (the LuaJIT Fluent Bit embeds), fed
// record["log"] as Fluent Bit hands it to the filter, held to the expected bytes for each case and, for generated
// lines (valid and broken), to its TypeScript twin (fluent-bit/model/event-kubernetes.ts, which the model runs).
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { luajitAvailable, luaLogFilter, UNCHANGED_REST } from './support/lua-log-filter.js';
import { FORWARDER_NAMES, eventKubernetesLine } from '../model/event-kubernetes.js';
import { FLUENT_BIT_ROOT, loadFluentBitConfig } from '../model/load-config.js';
import { property, sectionsOf } from '../model/classic-config.js';
import { FLUENT_BIT_TIMESTAMP_KEY } from '@workflow-index/postgresql';

const SCRIPT = join(FLUENT_BIT_ROOT, 'postgresql', 'event-kubernetes.lua');
const available = luajitAvailable('event-kubernetes.lua');
const runLua = luaLogFilter(SCRIPT, 'keep_event_kubernetes');

const E = '"eventType":"io.serverlessworkflow.workflow.started.v1"';
const CASES: readonly [string, string, string][] = [
  ['an ordinary event: unchanged', `{${E},"instanceId":"A","input":{"kubernetes":1}}`, `{${E},"instanceId":"A","input":{"kubernetes":1}}`],
  ['a top-level kubernetes member: renamed', `{${E},"kubernetes":{"pod_id":"x"},"a":1}`, `{${E},"wi_event_kubernetes":{"pod_id":"x"},"a":1}`],
  ['first member, with whitespace', ` { "kubernetes" : 1 , ${E} } `, ` { "wi_event_kubernetes" : 1 , ${E} } `],
  ['spelled with escapes: renamed, the spelling kept', `{${E},"\\u006bubernetes":1,"kube\\u0072netes":2}`, `{${E},"wi_event_\\u006bubernetes":1,"wi_event_kube\\u0072netes":2}`],
  ['repeated: each renamed', `{"kubernetes":1,${E},"kubernetes":2}`, `{"wi_event_kubernetes":1,${E},"wi_event_kubernetes":2}`],
  ['as a value, nested, in an array, with an escaped backslash, or longer: unchanged', `{${E},"a":"kubernetes","l":[{"kubernetes":1}],"\\\\u006bubernetes":1,"kubernetesx":1,"Kubernetes":1}`, `{${E},"a":"kubernetes","l":[{"kubernetes":1}],"\\\\u006bubernetes":1,"kubernetesx":1,"Kubernetes":1}`],
  ['after a nested object closes', `{${E},"o":{"a":{"b":[1,{"c":2}]}},"kubernetes":3}`, `{${E},"o":{"a":{"b":[1,{"c":2}]}},"wi_event_kubernetes":3}`],
  ['not one JSON object: unchanged', `{${E},"kubernetes":1`, `{${E},"kubernetes":1`],
  ['text after the object: unchanged', `{"kubernetes":1} x`, `{"kubernetes":1} x`],
  ['an array line: unchanged', '[{"kubernetes":1}]', '[{"kubernetes":1}]'],
  // The pgsql output's Timestamp_Key: Fluent Bit's printer would print the event's value as the record time.
  ['a top-level wi_record_time member: renamed', `{${E},"wi_record_time":"soon","a":1}`, `{${E},"wi_event_wi_record_time":"soon","a":1}`],
  ['wi_record_time and kubernetes, one escaped: both renamed', `{"wi_record\\u005ftime":1000,${E},"kubernetes":{}}`, `{"wi_event_wi_record\\u005ftime":1000,${E},"wi_event_kubernetes":{}}`],
  ['wi_record_time nested or as a value, or a longer name: unchanged', `{${E},"o":{"wi_record_time":1},"v":"wi_record_time","wi_record_times":1}`, `{${E},"o":{"wi_record_time":1},"v":"wi_record_time","wi_record_times":1}`],
];

describe('the event-kubernetes rename (TypeScript twin)', () => {
  it.each(CASES)('%s', (_, line, expected) => {
    expect((eventKubernetesLine(Buffer.from(line)) ?? Buffer.from(line)).toString()).toBe(expected);
    expect(eventKubernetesLine(Buffer.from(line)) === undefined).toBe(line === expected);
  });

  it('renames exactly the top-level names a forwarder stage of ours adds: kubernetes and the pgsql Timestamp_Key', () => {
    const { config } = loadFluentBitConfig('postgresql');
    const keys = sectionsOf(config, 'OUTPUT').map((o) => property(o, 'Timestamp_Key'));
    expect(new Set(keys)).toEqual(new Set([FLUENT_BIT_TIMESTAMP_KEY]));
    expect([...FORWARDER_NAMES].sort()).toEqual(['kubernetes', FLUENT_BIT_TIMESTAMP_KEY].sort());
  });

  it('keeps valid JSON valid: no top-level kubernetes or wi_record_time left, every other member as it was', () => {
    const key = fc.oneof(fc.constantFrom('a', 'kubernetes', 'wi_event_kubernetes', 'kubernetesx', 'é', 'wi_record_time', 'wi_event_wi_record_time'), fc.string({ maxLength: 3 }));
    fc.assert(fc.property(fc.array(fc.tuple(key, fc.jsonValue({ maxDepth: 2 })), { maxLength: 8 }), (entries) => {
      const line = `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
      const parsed = JSON.parse((eventKubernetesLine(Buffer.from(line)) ?? Buffer.from(line)).toString()) as Record<string, unknown>;
      expect(Object.hasOwn(parsed, 'kubernetes') || Object.hasOwn(parsed, 'wi_record_time')).toBe(false);
      const last = new Map(entries.map(([k, v]) => [FORWARDER_NAMES.has(k) ? `wi_event_${k}` : k, v]));
      for (const [k, v] of last) expect(JSON.stringify(parsed[k])).toBe(JSON.stringify(v)); // -0 prints as 0
    }), { numRuns: 300 });
  });
});

describe.skipIf(!available)('event-kubernetes.lua under luajit', () => {
  it('gives the expected bytes for every case, with code 0 exactly when nothing changed', () => {
    const results = runLua(CASES.map(([, line]) => Buffer.from(line)));
    expect(results.map((r) => [r.log.toString(), r.code, r.rest])).toEqual(CASES.map(([, line, expected]) => [expected, line === expected ? 0 : 2, UNCHANGED_REST]));
  });

  // Fragments glued without regard for JSON structure, so both implementations must agree on broken input too.
  const fragment = fc.oneof(
    fc.constantFrom('"', '\\', '\\"', '\\\\', '{', '}', '[', ']', ':', ',', ' ', '"kubernetes":', '"kubernetes"', '"\\u006bubernetes":', '"\\u006Bubernetes":',
      '"\\\\u006bubernetes":', '"kube\\u0072netes":', '"\\u00":', '"a":', '1', 'null', '"x"', 'é', '📦',
      '"wi_record_time":', '"wi_record\\u005ftime":', '"wi_record_time"').map((t) => Buffer.from(t, 'utf8')),
    fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)),
  );
  const brokenLine = fc.tuple(fc.constantFrom('', ' ', 'x'), fc.array(fragment, { maxLength: 30 }), fc.boolean())
    .map(([lead, parts, close]) => Buffer.concat([Buffer.from(`${lead}{`), ...parts, Buffer.from(close ? '}' : '')]));

  it('agrees with the TypeScript twin byte for byte on generated lines', () => {
    fc.assert(fc.property(fc.array(brokenLine, { minLength: 1, maxLength: 40 }), (lines) => {
      const results = runLua(lines);
      lines.forEach((line, i) => {
        const ts = eventKubernetesLine(line);
        expect({ line: line.toString('base64'), lua: results[i]!.log.toString('base64'), code: results[i]!.code })
          .toEqual({ line: line.toString('base64'), lua: (ts ?? line).toString('base64'), code: ts ? 2 : 0 });
      });
    }), { numRuns: 150 });
  });
});
