// The events and deliveries the normalizer's delivery properties generate (normalizer-delivery-properties.test.ts, one
// normalizer; normalizer-replicas-properties.test.ts, several): the reference fixture, a placeholder-only run, a loop
// stream with same-millisecond chains and bad lines beside them; delivered in any order, with re-deliveries under
// other record times (another daily index, another generated id) and exact re-sends.
import { readFileSync } from 'node:fs';
import { FIXTURE_PATH, loopStream, randomInt, shuffled, withRecordTimes } from '@workflow-index/testkit';
import type { Delivery } from './postgresql-twin.js';

const DAY = 86_400_000;
export const RECORD_TIME = Date.UTC(2026, 4, 12, 9, 14, 3);
const reference = readFileSync(FIXTURE_PATH, 'utf8').split('\n').filter((l) => l.trim() !== '');
const known = (JSON.parse(reference[0]!) as { instanceId: string }).instanceId;
const T = '1.7785772435E9';

/** Lines every rule refuses, each for a reason of its own. */
export const BAD_LINES: readonly string[] = [
  `{"eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":"do/0/x"}`,
  `{"instanceId":{"nested":true},"eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${T}}`,
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":"yesterday","taskPosition":"do/0/validateOrder"}`,
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.workflow.exploded.v1","timestamp":${T}}`,
  `{"instanceId":"only-bad-events","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${T}}`,
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.workflow.faulted.v1","timestamp":${T},"error":{"status":"five hundred"}}`,
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.workflow.status-changed.v1","timestamp":"2026-02-30T10:00:00Z","status":"RUNNING"}`,
  `{"instanceId":"a:b","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":"do/0/a"}`,
];

/** An instance known only from task events: stored as a placeholder, its executions flagged, never served. */
export const PLACEHOLDER_ONLY: readonly string[] = [
  `{"instanceId":"placeholder-only","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":"do/0/wait"}`,
  `{"instanceId":"placeholder-only","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":1.7785772436E9,"taskPosition":"do/0/wait"}`,
];

/** The accepted lines. */
export const GOOD_LINES: readonly string[] = [...PLACEHOLDER_ONLY, ...reference, ...loopStream({ seed: 11, format: 'epoch-millis', items: 40, instances: 1, chains: true }).lines];

/** One clean delivery of every line, good and bad. */
export function cleanDelivery(): Delivery[] {
  return withRecordTimes([...GOOD_LINES, ...BAD_LINES], RECORD_TIME);
}

/** Every line once, about 30 % of the good ones again under another record time (up to 40 days later), about 10 %
 * re-sent exactly, all shuffled. */
export function messyDelivery(random: () => number): Delivery[] {
  const once = cleanDelivery();
  const again: Delivery[] = GOOD_LINES.filter(() => random() < 0.3).map((line) => ({ line, recordTimeMs: RECORD_TIME + randomInt(random, 1, 40) * DAY + randomInt(random, 0, 999) }));
  const resent = once.filter(() => random() < 0.1);
  return shuffled([...once, ...again, ...resent], random);
}
