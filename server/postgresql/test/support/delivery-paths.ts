// The ways printed event lines reach the raw tables in production, for tests that deliver the same lines many
// times into one database: `init-job ingest` of a file (JSONL, `kubectl logs` output or a CRI log), the Fluent Bit
// pipeline model's pgsql statements, and a filterless forwarder's raw statements, the last two sent as a forwarder
// login (search_path workflow_raw, as the DaemonSet's). Each delivery renames the instances with a suffix so
// deliveries do not share instances; `served` strips it again, so snapshots of any two deliveries compare equal.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ingestEventLogs } from '../../src/event-log-ingest.js';
import { ensureLoginRole, type TestDatabase } from './test-database.js';
import { snapshot } from './load-events.js';
import { timeMicros } from '@workflow-index/testkit';
import { criLog, type PrintedLine } from '@workflow-index/testkit';
import type { Random } from '@workflow-index/testkit';
import { loadFluentBitConfig } from '@workflow-index/fluent-bit';
import { createPipeline, type FluentBitPipeline } from '@workflow-index/fluent-bit';
import { flushStatements, startupStatements } from '@workflow-index/fluent-bit';
import { deployedEnvironment } from '@workflow-index/fluent-bit/testing';
import { podLogPath } from '@workflow-index/testkit';

export const EVENT_LINE = /^\s*\{.*"eventType"\s*:\s*"io\.serverlessworkflow\./;
export const POD = 'capture-app-7c9d8f6b5-q2w3e';
export const CONTAINER_LOG = podLogPath(POD, 'workflows', 'app');

export type Snapshot = Awaited<ReturnType<typeof snapshot>>;

export function withSuffix(text: string, instanceIds: readonly string[], suffix: string): string {
  let out = text;
  for (const id of instanceIds) out = out.split(id).join(`${id}${suffix}`);
  return out;
}

export function stripSuffix<T>(value: T, suffix: string): T {
  return JSON.parse(JSON.stringify(value).split(suffix).join('')) as T;
}

/** The event's own timestamp of a printed line, epoch nanoseconds (µs precision). */
export function lineTimeNanos(line: string): bigint {
  return timeMicros((JSON.parse(line) as { timestamp: unknown }).timestamp)! * 1000n;
}

/** When a container runtime read each printed line: an event line 30–430 µs after its own timestamp, ns precision. */
export function runtimeTimes(lines: readonly string[], random: Random): bigint[] {
  const firstEvent = lines.find((l) => EVENT_LINE.test(l));
  let previous = firstEvent ? lineTimeNanos(firstEvent) - 10_000_000_000n : 1_795_441_500_000_000_000n;
  return lines.map((line) => {
    let at = previous + BigInt(1000 + Math.floor(random() * 40_000));
    if (EVENT_LINE.test(line)) {
      const own = lineTimeNanos(line) + BigInt(30_000 + Math.floor(random() * 400_000));
      if (own > at) at = own;
    }
    previous = at;
    return at;
  });
}

export function printedLines(lines: readonly string[], random: Random): PrintedLine[] {
  const times = runtimeTimes(lines, random);
  return lines.map((content, i) => ({ content, timeNanos: times[i]! }));
}

/** A record time as Fluent Bit prints it (a double, %.16g). */
export const recordTimeText = (nanos: bigint): string => (Number(nanos) / 1e9).toPrecision(16);

export interface DeliveryPaths {
  readonly forwarderRole: string;
  served(instanceIds: readonly string[], suffix: string): Promise<Snapshot>;
  /** `init-job ingest` of one file with this content. */
  ingestFile(content: string | Buffer): Promise<void>;
  asForwarder(statements: readonly string[]): Promise<void>;
  fluentBit(): FluentBitPipeline;
  /** The Fluent Bit model reads this container log and its pgsql statements are sent as the forwarder. */
  viaFluentBit(cri: Buffer, chunkRecords: number): Promise<number>;
  ingestErrors(suffix: string): Promise<unknown[]>;
  close(): Promise<void>;
}

export async function deliveryPaths(db: TestDatabase, name: string): Promise<DeliveryPaths> {
  const forwarderRole = `wi_${name}_${randomBytes(4).toString('hex')}`;
  await ensureLoginRole(forwarderRole, 'workflow_index_forwarder');
  const forwarder = new pg.Client({ connectionString: db.urlAs(forwarderRole, 'test-password') });
  await forwarder.connect();
  const dir = mkdtempSync(join(tmpdir(), `wi-${name}-`));
  let files = 0;
  let started = false;
  const asForwarder = async (statements: readonly string[]): Promise<void> => {
    for (const sql of statements) await forwarder.query(sql);
  };
  const fluentBit = (): FluentBitPipeline => createPipeline({
    ...loadFluentBitConfig('postgresql'),
    env: deployedEnvironment({ DATABASE_USERNAME: forwarderRole, DATABASE_PASSWORD: 'test-password' }),
    podMetadata: () => ({ podId: '3b8e2a4c-9d1f-4e6a-8b7c-0d1e2f3a4b5c', labels: { app: 'capture-app' }, host: 'node-1', containerImage: 'capture/app:1.0.0' }),
  });
  return {
    forwarderRole,
    served: async (instanceIds, suffix) => stripSuffix(await snapshot(db.pool, instanceIds.map((id) => `${id}${suffix}`)), suffix),
    ingestFile: async (content) => {
      const file = join(dir, `delivery-${files++}.log`);
      writeFileSync(file, content);
      await ingestEventLogs(db.pool, [file], { retry: { attempts: 1 } });
    },
    asForwarder,
    fluentBit,
    viaFluentBit: async (cri, chunkRecords) => {
      const pipeline = fluentBit();
      const delivered = pipeline.readLogFile(CONTAINER_LOG, cri).delivered;
      if (!started) await asForwarder(startupStatements(pipeline));
      started = true;
      await asForwarder(flushStatements(pipeline, delivered, chunkRecords).map((f) => f.sql));
      return delivered.length;
    },
    ingestErrors: async (suffix) =>
      (await db.pool.query(`SELECT instance_id, event_type, reason FROM workflow_index.ingest_errors WHERE instance_id LIKE $1 ORDER BY id`, [`%${suffix}`])).rows,
    close: async () => {
      await forwarder.end().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { criLog };
