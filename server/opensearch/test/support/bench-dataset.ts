// The bench dataset (testkit bench-dataset.ts: N task executions per instance, a FAULTED run faulting at task
// (g / 200) % N) on OpenSearch, for bench:query --backend opensearch and the bounded-work tests: written as events and
// turned into documents by the normalizer's own pure function (normalizeInstance), then bulk-indexed straight into the
// normalized indices: a query benchmark (ingestion is bench:ingest's), with documents exactly as the normalizer writes
// them, and the same population as PostgreSQL's.
import type { Client } from '@opensearch-project/opensearch';
import { BASE_TIME, CUSTOMERS, NAMESPACES, SPAN_SECONDS, TASK_NAMES, benchInstanceId } from '@workflow-index/testkit';
import { parseLosslessJson } from '@workflow-index/events';
import { normalizeInstance } from '../../src/normalize-instance.js';
import { type NormalizedIndexNames } from '../../src/normalized-indices.js';
import { documentId, sendBulk, type BulkLine } from '../../src/normalizer-recompute.js';
import { type ParsedEvent, parseRawEvent } from '../../src/raw-event-parse.js';

const P = 'io.serverlessworkflow.';

function statusOf(g: number): 'COMPLETED' | 'RUNNING' | 'FAULTED' | 'CANCELLED' {
  const r = g % 20;
  return r < 14 ? 'COMPLETED' : r < 17 ? 'RUNNING' : r < 19 ? 'FAULTED' : 'CANCELLED';
}

/** Start of instance g in epoch seconds (µs resolution), as the PostgreSQL dataset spreads them. */
export function startSeconds(g: number, instances: number): number {
  return Math.round((BASE_TIME / 1000 + (g * SPAN_SECONDS) / instances) * 1e6 + (g % 997)) / 1e6;
}

/** Duration of instance g in seconds, as the PostgreSQL dataset's `d`: 1.5 to 4.5 s, and 30 to 60 s for g % 100 = 7. */
export function durationSeconds(g: number): number {
  return g % 100 === 7 ? 30 + (g % 997) * 0.03 : 1.5 + ((g * 7919) % 3000) / 1000;
}

/** The events instance g prints (1-based g). */
export function instanceEvents(g: number, instances: number, tasksPerInstance: number): Record<string, unknown>[] {
  const id = benchInstanceId(g);
  const status = statusOf(g);
  const t0 = startSeconds(g, instances);
  const input = { orderId: `ORD-${g}`, customer: { id: `C-${g % CUSTOMERS}`, tier: g % 3 === 0 ? 'gold' : 'std' }, amount: (g % 1000) + 0.5, items: [{ sku: `SKU-${g % 97}`, qty: (g % 5) + 1 }], ...(g % 50 === 0 ? { coupon: `SPRING-${g % 7}` } : {}) };
  const events: Record<string, unknown>[] = [
    { eventType: `${P}workflow.started.v1`, instanceId: id, timestamp: t0, startTime: t0, status: 'RUNNING', workflowNamespace: `com.acme.ns${Math.floor(g / 20) % NAMESPACES}`, workflowName: `flow-${g % 17}`, workflowVersion: `1.${g % 3}.0`, input },
  ];
  for (let k = 0; k < tasksPerInstance; k++) {
    const name = TASK_NAMES[k % TASK_NAMES.length]!;
    const position = `do/${k}/${name}`;
    const start = t0 + k * 0.15;
    const end = start + 0.1;
    events.push({ eventType: `${P}task.started.v1`, instanceId: id, taskName: name, taskPosition: position, timestamp: start, startTime: start, status: 'RUNNING', input: { step: k } });
    if (status === 'RUNNING' && k === tasksPerInstance - 1) break;
    if (status === 'FAULTED' && k === Math.floor(g / 200) % tasksPerInstance) {
      events.push({ eventType: `${P}task.faulted.v1`, instanceId: id, taskName: name, taskPosition: position, timestamp: end, endTime: end, status: 'FAULTED', error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', title: 'Service Unavailable', status: 503, instance: position } });
      continue;
    }
    events.push({ eventType: `${P}task.completed.v1`, instanceId: id, taskName: name, taskPosition: position, timestamp: end, endTime: end, status: 'COMPLETED', output: { done: true } });
  }
  const last = Math.round((t0 + durationSeconds(g)) * 1e6) / 1e6;
  if (status === 'COMPLETED') events.push({ eventType: `${P}workflow.completed.v1`, instanceId: id, timestamp: last, endTime: last, status, output: { ok: true, total: g % 1000 } });
  if (status === 'FAULTED') events.push({ eventType: `${P}workflow.faulted.v1`, instanceId: id, timestamp: last, endTime: last, status, error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', title: 'Service Unavailable', status: 503, instance: 'do/3/charge' } });
  if (status === 'CANCELLED') events.push({ eventType: `${P}workflow.cancelled.v1`, instanceId: id, timestamp: last, endTime: last, status });
  return events;
}

/** Writes `instances` instances with their task executions (bulk requests of ~`batch` instances), then refreshes. */
export async function writeDataset(client: Client, names: NormalizedIndexNames, instances: number, tasksPerInstance: number, batch = 500): Promise<{ instances: number; executions: number }> {
  let executions = 0;
  for (let from = 1; from <= instances; from += batch) {
    const lines: BulkLine[] = [];
    for (let g = from; g < Math.min(from + batch, instances + 1); g++) {
      const parsed: ParsedEvent[] = instanceEvents(g, instances, tasksPerInstance).map((event) => {
        const result = parseRawEvent(parseLosslessJson(JSON.stringify(event)));
        if (!result.ok) throw new Error(`generated event refused: ${result.reason}`);
        return result.event;
      });
      const normalized = normalizeInstance(benchInstanceId(g), parsed);
      lines.push({ action: { index: { _index: names.workflowInstances, _id: normalized.instance.id } }, document: normalized.instance });
      for (const execution of normalized.executions) {
        lines.push({ action: { index: { _index: names.taskExecutions, _id: documentId(execution.id) } }, document: execution });
        executions++;
      }
    }
    const refused = await sendBulk(client, lines);
    if (refused.length > 0) throw new Error(`dataset documents refused: ${JSON.stringify(refused[0])}`);
  }
  await client.transport.request({ method: 'POST', path: `/${names.workflowInstances},${names.taskExecutions}/_refresh` });
  await client.transport.request({ method: 'POST', path: `/${names.workflowInstances},${names.taskExecutions}/_forcemerge`, querystring: { max_num_segments: '1' } });
  return { instances, executions };
}
