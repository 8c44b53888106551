// Quarkus-Flow-shaped event lines for long `for` loops, in the shape of the real fixtures (same field names in
// the same order, status values, taskExecutionId = UUIDv3 of `<instanceId>:<taskPosition>:<epoch millis>`), with
// the timing patterns a real producer shows: with `timestamp-format=epoch-millis`, one iteration's task.completed
// and the next iteration's task.started very often share a millisecond (107 of 300 in a real run), and a fast
// task's own started and completed too. The same runs can be printed with the producer's other precisions:
// `epoch-seconds` (a Java double, `1.7954415230510702E9`, about µs) and `iso8601` (nine fraction digits).
//
// One clock (epoch nanoseconds) drives a run; the format only changes how each instant is printed, so the three
// formats of one seed describe the same execution.
import { createHash } from 'node:crypto';
import type { Event } from './event-rows.js';
import { randomInt, seededRandom, type Random } from './seeded-random.js';

export type ProducerTimeFormat = 'epoch-millis' | 'epoch-seconds' | 'iso8601';

export interface LoopStreamOptions {
  readonly seed: number;
  readonly format: ProducerTimeFormat;
  /** Loop items per instance. */
  readonly items?: number;
  readonly instances?: number;
  /** include-workflow-payloads / include-task-payloads: each iteration's input and output then differ. */
  readonly payloads?: boolean;
  /**
   * Allow three events at one position within one millisecond (started, completed, next started). Such a chain
   * cannot be paired from the events alone when payloads are on (which start the end belongs to is decided by
   * the content order), and without payloads two identical started lines are one event. Off by default.
   */
  readonly chains?: boolean;
  /** First instant, epoch nanoseconds. */
  readonly startNanos?: bigint;
}

export interface LoopStream {
  readonly lines: string[];
  readonly events: Event[];
  readonly instanceIds: string[];
  /** Per loop position: how often completed(i) and started(i+1) share a millisecond, and started/completed of one iteration. */
  readonly ties: { readonly endThenStart: number; readonly startAndEnd: number };
}

const P = 'io.serverlessworkflow.';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const NS_PER_MS = 1_000_000n;

/** Java's UUID.nameUUIDFromBytes: MD5 of the UTF-8 bytes, version 3, IETF variant. */
export function uuidV3(name: string): string {
  const h = createHash('md5').update(Buffer.from(name, 'utf8')).digest();
  h[6] = (h[6]! & 0x0f) | 0x30;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Java Double.toString for values ≥ 10^7 (how Jackson prints a double): `1.7954415230510702E9`, `1.0E9`. */
export function javaDouble(value: number): string {
  const [mantissa = '', exponent = '0'] = value.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** OffsetDateTime.toString in UTC: fraction in groups of 3, 6 or 9 digits as the nanos need, none when zero. */
export function javaIsoInstant(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  const n = nanos % 1_000_000_000n;
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  const digits = n === 0n ? '' : n % NS_PER_MS === 0n ? String(n / NS_PER_MS).padStart(3, '0') : n % 1000n === 0n ? String(n / 1000n).padStart(6, '0') : String(n).padStart(9, '0');
  return `${base}${digits ? `.${digits}` : ''}Z`;
}

export function printTime(nanos: bigint, format: ProducerTimeFormat): string {
  switch (format) {
    case 'epoch-millis':
      return String(nanos / NS_PER_MS);
    case 'epoch-seconds':
      // epochSecond + nano / 1e9 in double arithmetic: 17 significant digits, as the real output shows.
      return javaDouble(Number(nanos / 1_000_000_000n) + Number(nanos % 1_000_000_000n) / 1e9);
    case 'iso8601':
      return JSON.stringify(javaIsoInstant(nanos));
  }
}

function ulid(random: Random): string {
  return `01M8${Array.from({ length: 22 }, () => CROCKFORD[randomInt(random, 0, 31)]).join('')}`;
}

const ms = (nanos: bigint): bigint => nanos / NS_PER_MS;

export function loopStream(options: LoopStreamOptions): LoopStream {
  const random = seededRandom(options.seed);
  const items = options.items ?? 300;
  const payloads = options.payloads ?? true;
  const format = options.format;
  let clock = options.startNanos ?? 1_795_441_600_000_000_000n;
  const lines: string[] = [];
  const instanceIds: string[] = [];
  let endThenStart = 0;
  let startAndEnd = 0;

  const t = (nanos: bigint): string => printTime(nanos, format);
  const advance = (minNs: number, maxNs: number): bigint => {
    clock += BigInt(randomInt(random, minNs, maxNs));
    return clock;
  };
  const json = (value: unknown): string => JSON.stringify(value);

  for (let k = 0; k < (options.instances ?? 1); k++) {
    const id = ulid(random);
    instanceIds.push(id);
    const words = Array.from({ length: items }, (_, i) => `item-${k}-${i}-${randomInt(random, 0, 9999)}`);
    const workflowInput = { items: words, note: 'Olá — 你好' };
    const taskLine = (action: 'started' | 'completed', position: string, name: string, at: bigint, payload?: unknown): string => {
      const exec = `"taskExecutionId":${json(uuidV3(`${id}:${position}:${ms(at)}`))},"taskPosition":${json(position)},"taskName":${json(name)}`;
      const data = payloads && payload !== undefined ? `${json(action === 'started' ? 'input' : 'output')}:${json(payload)},` : '';
      return action === 'started'
        ? `{${data}"instanceId":${json(id)},${exec},"startTime":${t(at)},"eventType":"${P}task.started.v1","timestamp":${t(at)},"status":"RUNNING"}`
        : `{${data}"instanceId":${json(id)},${exec},"eventType":"${P}task.completed.v1","endTime":${t(at)},"timestamp":${t(at)},"status":"COMPLETED"}`;
    };
    const statusChanged = (status: string, at: bigint): string =>
      `{"instanceId":${json(id)},"eventType":"${P}workflow.status-changed.v1","timestamp":${t(at)},"status":"${status}","lastUpdateTime":${t(at)}}`;

    lines.push(statusChanged('RUNNING', advance(200_000, 2_000_000)));
    const startedAt = advance(20_000, 900_000);
    lines.push(`{${payloads ? `"input":${json(workflowInput)},` : ''}"instanceId":${json(id)},"workflowNamespace":"generated","workflowName":"long-loop","startTime":${t(startedAt)},"eventType":"${P}workflow.started.v1","workflowVersion":"1.0.0","timestamp":${t(startedAt)},"status":"RUNNING"}`);

    const forPos = 'do/0/processItems/do';
    const bodyPos = `${forPos}/0/handleItem`;
    lines.push(taskLine('started', forPos, 'processItems', advance(50_000, 600_000), workflowInput));
    let previousEnd: bigint | undefined;
    let previousStart: bigint | undefined;
    let last: unknown = null;
    for (let i = 0; i < items; i++) {
      // The gap between one iteration's end and the next start: often well under a millisecond.
      let start = previousEnd === undefined ? advance(30_000, 900_000) : advance(10_000, 950_000);
      if (!options.chains && previousEnd !== undefined && previousStart !== undefined && ms(previousStart) === ms(previousEnd) && ms(previousEnd) === ms(start)) {
        start = clock = (ms(start) + 1n) * NS_PER_MS + BigInt(randomInt(random, 1_000, 300_000));
      }
      lines.push(taskLine('started', bodyPos, 'handleItem', start, i === 0 ? workflowInput : { lastItem: last }));
      // Fast tasks: a third of them finish within the same millisecond.
      let end = advance(40_000, random() < 0.35 ? 600_000 : 2_500_000);
      if (!options.chains && previousEnd !== undefined && ms(previousEnd) === ms(start) && ms(start) === ms(end)) {
        end = clock = (ms(end) + 1n) * NS_PER_MS + BigInt(randomInt(random, 1_000, 300_000));
      }
      last = words[i];
      lines.push(taskLine('completed', bodyPos, 'handleItem', end, { lastItem: last, index: i }));
      if (previousEnd !== undefined && ms(previousEnd) === ms(start)) endThenStart++;
      if (ms(start) === ms(end)) startAndEnd++;
      previousStart = start;
      previousEnd = end;
    }
    lines.push(taskLine('completed', forPos, 'processItems', advance(20_000, 800_000), { lastItem: last }));
    // A fast top-level task after the loop.
    const quick = advance(20_000, 300_000);
    lines.push(taskLine('started', 'do/1/finish', 'finish', quick, { lastItem: last }));
    lines.push(taskLine('completed', 'do/1/finish', 'finish', advance(5_000, 400_000), { done: true }));
    lines.push(statusChanged('COMPLETED', advance(5_000, 900_000)));
    const completedAt = advance(2_000, 500_000);
    lines.push(`{${payloads ? `"output":${json({ done: true })},` : ''}"instanceId":${json(id)},"eventType":"${P}workflow.completed.v1","endTime":${t(completedAt)},"timestamp":${t(completedAt)},"status":"COMPLETED"}`);
  }
  return { lines, events: lines.map((l) => JSON.parse(l) as Event), instanceIds, ties: { endThenStart, startAndEnd } };
}
