// Checks of the suite's own input and expectations, so an edit of the extra events or the tables cannot
// silently make the backend runs meaningless. Needs no backend.
import { describe, expect, it } from 'vitest';
import { SHAPED_STRING_OPERATORS, TEXT_OPERATOR_NAMES } from '@workflow-index/core';
import { INSTANCE_STRING_CASES, TASK_CASES } from '../src/conformance/filter-assertions.js';
import { CONFORMANCE_EVENTS, EXTRA_EVENTS, FIXTURE_EVENTS, PLACEHOLDER_INSTANCE_IDS, PLACEHOLDER_TASK_IDS } from '../src/conformance/conformance-events.js';
import { ALL_INSTANCES, ALL_TASKS, PAGING_INSTANCES } from '../src/conformance/expected-data.js';
import { compareCodePoints, ids, sortInstances } from '../src/conformance/expected-order.js';
import { isServedTimestamp, microsOf, servedFromMicros } from '../src/conformance/timestamps.js';

const EVENT_TYPE = /^io\.serverlessworkflow\.(workflow|task)\.([a-z-]+)\.v1$/;
const V3_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('conformance data', () => {
  it('is the 80 reference events followed by the extra events', () => {
    expect(FIXTURE_EVENTS).toHaveLength(80);
    expect(CONFORMANCE_EVENTS).toEqual([...FIXTURE_EVENTS, ...EXTRA_EVENTS]);
    expect(new Set(FIXTURE_EVENTS.map((e) => e['instanceId'])).size).toBe(8);
  });

  it('extra events have the shape Quarkus Flow emits', () => {
    for (const event of EXTRA_EVENTS) {
      const match = EVENT_TYPE.exec(String(event['eventType']));
      expect(match, JSON.stringify(event)).not.toBeNull();
      expect(typeof event['instanceId']).toBe('string');
      expect(['number', 'string']).toContain(typeof event['timestamp']);
      const identity = ['workflowNamespace', 'workflowName', 'workflowVersion'].filter((k) => k in event);
      if (match![1] === 'task') {
        expect(event['taskExecutionId']).toMatch(V3_UUID);
        expect(String(event['taskPosition'])).toMatch(/^[^/].*\/\d+\/[^/]+$/);
        expect(String(event['taskPosition']).endsWith(`/${String(event['taskName'])}`)).toBe(true);
        expect(event['status']).toBe({ started: 'RUNNING', completed: 'COMPLETED', faulted: 'FAILED', cancelled: 'CANCELLED' }[match![2]!]);
        expect(identity).toEqual([]);
      } else if (match![2] !== 'started') {
        expect(identity).toEqual([]);
      } else {
        expect(identity).toContain('workflowName');
      }
    }
  });

  it('expects exactly the instances that have a workflow.started, never a placeholder', () => {
    const started = new Set(CONFORMANCE_EVENTS.filter((e) => e['eventType'] === 'io.serverlessworkflow.workflow.started.v1').map((e) => e['instanceId']));
    expect([...started].sort()).toEqual(ALL_INSTANCES.map((i) => i.id).sort());
    for (const id of PLACEHOLDER_INSTANCE_IDS) {
      expect(CONFORMANCE_EVENTS.some((e) => e['instanceId'] === id)).toBe(true);
      expect(started.has(id)).toBe(false);
    }
    for (const id of PLACEHOLDER_TASK_IDS) expect(ALL_TASKS.map((t) => t.id)).not.toContain(id);
    expect(new Set(ALL_TASKS.map((t) => t.id)).size).toBe(ALL_TASKS.length);
    for (const task of ALL_TASKS) expect(started.has(task.workflowInstanceId)).toBe(true);
  });

  it('writes every expected timestamp in the served form', () => {
    const values = [
      ...ALL_INSTANCES.flatMap((i) => [i.startDate, i.endDate, i.lastUpdate]),
      ...ALL_TASKS.flatMap((t) => [t.startDate, t.endDate]),
    ].filter((v): v is string => v !== null);
    for (const value of values) {
      expect(isServedTimestamp(value), value).toBe(true);
      expect(servedFromMicros(microsOf(value))).toBe(value);
    }
    expect(isServedTimestamp('2026-05-12T09:14:03.510Z')).toBe(false);
    expect(isServedTimestamp('2026-05-12T09:14:03.000000Z')).toBe(false);
  });

  it('paging instances share start times in groups of three, in an order other than id order', () => {
    const byStart = ids(sortInstances(PAGING_INSTANCES, [['startDate', 'DESC']]));
    expect(byStart).not.toEqual(ids(PAGING_INSTANCES));
    expect(new Set(PAGING_INSTANCES.map((i) => i.startDate)).size).toBe(35);
  });

  it('compares strings by code point, not by UTF-16 code unit', () => {
    expect(compareCodePoints('ｆｕｌｌｗｉｄｔｈ', '🚀launch')).toBeLessThan(0);
    expect('ｆｕｌｌｗｉｄｔｈ' < '🚀launch').toBe(false);
    expect(compareCodePoints('Zeta', 'alpha')).toBeLessThan(0);
    expect(compareCodePoints('rateX100Y', 'rate_100%')).toBeLessThan(0);
    expect(compareCodePoints('abc', 'ab')).toBeGreaterThan(0);
  });
});

describe('conformance filter cases', () => {
  it('every string operator is asserted on a run field and on a task field (a new operator needs its cases)', () => {
    for (const op of [...TEXT_OPERATOR_NAMES, ...SHAPED_STRING_OPERATORS]) {
      const used = new RegExp(`\\b${op}:`);
      expect(INSTANCE_STRING_CASES.some(([filter]) => used.test(filter)), `${op} on a run field`).toBe(true);
      expect(TASK_CASES.some(([filter]) => used.test(filter)), `${op} on a task field`).toBe(true);
    }
  });
});
