// The parts of WorkflowInstance.events that need no backend: the record derivation both backends share, the order and
// its pages while events arrive (fast-check), the cursor's checks, the scoped Reader's narrowing and redaction, the
// query cost and the batching. Both backends' answers: the shared event-history suite (testkit) on each.
import fc from 'fast-check';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { parseLosslessJson } from '@workflow-index/events';
import { accessOf } from '../src/auth/access.js';
import { scopedReader } from '../src/auth/scoped-reader.js';
import { decodeEventCursor, eventCursor } from '../src/event-cursor.js';
import { compareCodePoints, compareEventKeys, eventKey, orderEvents, pageOfEvents } from '../src/event-order.js';
import { distinctEventRecords, workflowEventRecord } from '../src/event-record.js';
import { buildSchema } from '../src/graphql-server.js';
import { operationCost } from '../src/query-cost.js';
import type { Reader, WorkflowEventRecord } from '../src/reader.js';
import { loadSchemaSdl } from '../src/schema-sdl.js';
import { INSTANCE_A, INSTANCE_B, postGraphQL, RecordingReader, testApp, testConfig } from '@workflow-index/testkit';

const TYPES = ['io.serverlessworkflow.task.started.v1', 'io.serverlessworkflow.task.completed.v1', 'io.serverlessworkflow.workflow.started.v1'];

const record = (document: Record<string, unknown>, accepted = true, rejection: string | null = null): WorkflowEventRecord =>
  workflowEventRecord({ accepted, document: parseLosslessJson(JSON.stringify(document)), rejection, eventType: null }, { payloads: true });

/** Events with few distinct times, types and positions, so ties at every level of the order occur. */
const eventArb = fc
  .record({
    second: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
    type: fc.constantFrom(...TYPES),
    position: fc.option(fc.constantFrom('do/0/a', 'do/1/b', 'do/𝔸'), { nil: null }),
    accepted: fc.boolean(),
    n: fc.integer({ min: 0, max: 5 }),
  })
  .map(({ second, type, position, accepted, n }) =>
    record({ eventType: type, instanceId: 'r', timestamp: second === null ? 'yesterday' : `2026-06-01T10:00:0${second}Z`, ...(position === null ? {} : { taskPosition: position }), n }, accepted, accepted ? null : 'bad'),
  );

const uniqueEvents = (events: readonly WorkflowEventRecord[]): WorkflowEventRecord[] => [...new Map(events.map((e) => [JSON.stringify(eventKey(e)), e])).values()];

describe('the event record both backends derive', () => {
  it('drops the forwarder fields, prints jsonb text, reads the time by the normalizer rule, names the task', () => {
    const event = workflowEventRecord(
      { accepted: true, document: parseLosslessJson('{"wi_record_time":1.5,"@timestamp":"x","taskPosition":"do/0/charge","eventType":"io.serverlessworkflow.task.started.v1","timestamp":1.7803080012500000E9,"n":1.0E2}'), rejection: null, eventType: null },
      { payloads: true },
    );
    expect(event).toMatchObject({ type: 'io.serverlessworkflow.task.started.v1', time: '2026-06-01T10:00:01.250000Z', taskPosition: 'do/0/charge', taskName: 'charge', accepted: true, rejection: null });
    // Numbers as PostgreSQL's numeric prints them (the token's scale kept), keys by length then bytes.
    expect(event.data).toBe('{"n": 100, "eventType": "io.serverlessworkflow.task.started.v1", "timestamp": 1780308001.2500000, "taskPosition": "do/0/charge"}');
    expect(workflowEventRecord({ accepted: true, document: null, rejection: null, eventType: null }, { payloads: false }).data).toBeUndefined();
  });

  it('a rejected event: the recorded type and reason; an unreadable or impossible time is null; its raw text may be gone', () => {
    const impossible = workflowEventRecord({ accepted: false, document: parseLosslessJson('{"timestamp":"2026-02-30T00:00:00Z"}'), rejection: 'why', eventType: 'io.x.workflow.completed.v1' }, { payloads: true });
    expect(impossible).toMatchObject({ type: 'io.x.workflow.completed.v1', time: null, accepted: false, rejection: 'why' });
    const gone = workflowEventRecord({ accepted: false, document: null, rejection: 'why', eventType: null }, { payloads: true });
    expect(gone).toMatchObject({ type: '', time: null, data: null, rejection: 'why' });
  });

  it('a rejected event delivered twice (same content and reason) is one; another reason is another', () => {
    const input = { accepted: false, document: parseLosslessJson('{"timestamp":"yesterday"}'), eventType: 't' };
    expect(distinctEventRecords([{ ...input, rejection: 'a' }, { ...input, rejection: 'a' }, { ...input, rejection: 'b' }], { payloads: false })).toHaveLength(2);
  });
});

describe('the order of a history and its pages', () => {
  it('property: the order is total (distinct events never compare equal) and time ascending with unreadable times last', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30 }), (events) => {
        const ordered = orderEvents(uniqueEvents(events));
        for (let i = 1; i < ordered.length; i++) expect(compareEventKeys(eventKey(ordered[i - 1]!), eventKey(ordered[i]!))).toBeLessThan(0);
        const times = ordered.map((e) => e.time);
        const firstNull = times.indexOf(null);
        if (firstNull >= 0) expect(times.slice(firstNull).every((t) => t === null)).toBe(true);
      }),
    );
  });

  it('property: pages after cursors, with events arriving between pages, give every event present throughout exactly once, in order', () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 25 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.array(eventArb, { maxLength: 3 })), { minLength: 1, maxLength: 8 }),
        (initial, steps) => {
          let store = uniqueEvents(initial);
          const original = orderEvents(store);
          const served: WorkflowEventRecord[] = [];
          for (let k = 0; ; k++) {
            const [limit, arriving] = steps[k % steps.length]!;
            const after = served.length === 0 ? null : decodeEventCursor(eventCursor(served[served.length - 1]!));
            const page = pageOfEvents(orderEvents(store), after, limit);
            served.push(...page);
            if (page.length < limit) break;
            store = uniqueEvents([...store, ...arriving]);
          }
          const keys = served.map((e) => JSON.stringify(eventKey(e)));
          expect(new Set(keys).size).toBe(keys.length);
          for (let i = 1; i < served.length; i++) expect(compareEventKeys(eventKey(served[i - 1]!), eventKey(served[i]!))).toBeLessThan(0);
          for (const e of original) expect(keys).toContain(JSON.stringify(eventKey(e)));
        },
      ),
    );
  });
});

describe('the events cursor', () => {
  it('is BAD_USER_INPUT when it is not one of WorkflowInstance.events, and round-trips its key', () => {
    const event = record({ eventType: TYPES[0], timestamp: '2026-06-01T10:00:00Z', taskPosition: 'do/𝔸' });
    expect(decodeEventCursor(eventCursor(event))).toEqual(eventKey(event));
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const bad of ['', '%%', encode(['wi1', 'instances', ['x'], ['y']]), encode(['wi1', 'events', [null, 't', null, true, 'no-digest']]), encode(['wi1', 'events', ['2026-02-30T00:00:00.000000Z', 't', null, true, '0'.repeat(32)]])]) {
      expect(() => decodeEventCursor(bad)).toThrow(/after is/);
    }
  });
});

describe('through the app', () => {
  const history = new Map([[INSTANCE_A.id, [record({ eventType: TYPES[2], timestamp: '2026-06-01T10:00:00Z', input: { secret: 1 } })]]]);

  it('one eventsOfInstances call for every run of a page; data read only when selected', async () => {
    const reader = new RecordingReader({ events: history });
    const { app } = testApp({ reader });
    const res = await postGraphQL(app, '{ getWorkflowInstances { id events { type } more: events(limit: 1) { time } } }');
    expect(res.body.errors).toBeUndefined();
    expect(reader.callsOf('eventsOfInstances')).toEqual([{ method: 'eventsOfInstances', ids: [INSTANCE_A.id, INSTANCE_B.id], payloads: false }]);
    const withData = await postGraphQL(app, '{ getWorkflowInstance(id: "inst-a") { events { data } } }');
    expect(withData.body.data).toEqual({ getWorkflowInstance: { events: [{ data: '{"input": {"secret": 1}, "eventType": "io.serverlessworkflow.workflow.started.v1", "timestamp": "2026-06-01T10:00:00Z"}' }] } });
  });

  it('the query cost counts each events list at its limit per run of its list', () => {
    const config = testConfig();
    const schema = buildSchema(loadSchemaSdl(), config);
    const cost = (query: string) => operationCost(schema, parse(query), undefined, {}, config.graphql).total;
    expect(cost('{ getWorkflowInstance(id: "x") { events { type } } }')).toBe(1 + 100);
    expect(cost('{ getWorkflowInstances(limit: 10) { events(limit: 50) { type } } }')).toBe(10 * (1 + 50));
  });
});

describe('the scoped reader', () => {
  const rules = [
    { group: 'team', namespaces: ['org.acme.*'], payloads: false },
    { group: 'audit', namespaces: ['org.other'], payloads: true },
  ];
  const events = new Map([[INSTANCE_A.id, [record({ eventType: TYPES[2], timestamp: '2026-06-01T10:00:00Z' })]], [INSTANCE_B.id, [record({ eventType: TYPES[2], timestamp: '2026-06-01T10:00:00Z' })]]]);

  it('a run the subject cannot see has no events (the backend is not asked for it); data null without payloads', async () => {
    const reader = new RecordingReader({ events, instances: [{ ...INSTANCE_A, namespace: 'org.acme.shop' }] });
    const scoped = scopedReader(reader as Reader, accessOf(['team', 'audit'], rules));
    const found = await scoped.eventsOfInstances([INSTANCE_A.id, INSTANCE_B.id], { payloads: true });
    expect(found.get(INSTANCE_B.id)).toEqual([]);
    expect(found.get(INSTANCE_A.id)?.map((e) => e.data)).toEqual([null]);
    expect(reader.callsOf('eventsOfInstances')).toEqual([{ method: 'eventsOfInstances', ids: [INSTANCE_A.id], payloads: true }]);
  });
});

describe('code point order', () => {
  it('property: compareCodePoints orders as the strings\' code point sequences (not UTF-16 units)', () => {
    const unit = fc.constantFrom('a', 'z', '\uE000', '\uFFFF', '𝔸', '😀', 'é', '\u0000');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 6 }), fc.string({ unit, maxLength: 6 }), (a, b) => {
        const x = [...a].map((c) => c.codePointAt(0)!);
        const y = [...b].map((c) => c.codePointAt(0)!);
        let expected = x.length - y.length;
        for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) { expected = x[i]! - y[i]!; break; }
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(expected));
      }),
    );
  });
});
