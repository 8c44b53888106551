// Counts, durations, relation filters and JSON operators on OpenSearch over a generated set: normalized documents written directly
// (the normalizer's document shape, not its speed, matters here) under a throw-away prefix, then each query timed
// through Reader, with a floor from the same run (a 20-row match_all search of the same index).
//   node --conditions=source --import tsx bench/opensearch/lookups-bench.ts [--runs 60000] [--tasks 4]
import { Client } from '@opensearch-project/opensearch';
import type { InstanceFilter, TaskFilter } from '@workflow-index/core';
import { applyNormalizedIndices, createOpenSearchReader, jsonLeaves, jsonPathEntries, normalizedIndexNames } from '@workflow-index/opensearch';
import { JsonNumber, microsToIso } from '@workflow-index/events';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const RUNS = arg('runs', 60_000);
const TASKS = arg('tasks', 4);
const URL = process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200';
const prefix = `wi-bench-ext-${process.pid}-`;
const client = new Client({ node: URL });
const names = normalizedIndexNames(prefix);
const T0 = 1_778_577_243_000_000;
const STATUSES = ['COMPLETED', 'COMPLETED', 'COMPLETED', 'FAULTED', 'RUNNING'];

function payload(i: number) {
  const input = new Map<string, JsonNumber | string>([['amount', new JsonNumber(String(i % 5000))], ['orderId', `ORD-${i}`]]);
  const leaves = jsonLeaves(input);
  const paths = jsonPathEntries(input);
  const empty = { input_leaves: [], input_leaves_complete: true, input_paths: [], input_numbers: [], input_paths_complete: true };
  return {
    input: { amount: i % 5000, orderId: `ORD-${i}` }, input_json: JSON.stringify({ amount: i % 5000, orderId: `ORD-${i}` }),
    input_leaves: leaves.leaves, input_leaves_complete: leaves.complete, input_paths: paths.paths, input_numbers: paths.numbers, input_paths_complete: paths.complete,
    output: null, output_json: null, output_leaves: [], output_leaves_complete: true, output_paths: [], output_numbers: [], output_paths_complete: true,
    empty,
  };
}

function* documents(): Generator<[string, string, Record<string, unknown>]> {
  for (let i = 0; i < RUNS; i++) {
    const id = `run-${String(i).padStart(8, '0')}`;
    const status = STATUSES[i % STATUSES.length]!;
    const start = T0 + i * 1000;
    const end = status === 'RUNNING' ? null : start + 1000 + ((i * 7919) % 5_000_000);
    const { empty: _empty, ...p } = payload(i);
    const name = `wf-${i % 20}`;
    yield [names.workflowInstances, id, {
      id, name, namespace: 'bench', version: '1.0.0', status, start_time_us: start, end_time_us: end, last_update_us: end ?? start, duration_us: end === null ? null : end - start,
      start_time: microsToIso(start), end_time: end === null ? null : microsToIso(end), last_update: microsToIso(end ?? start), ...p, error: null, placeholder: false,
    }];
    for (let k = 0; k < TASKS; k++) {
      const taskStatus = status === 'FAULTED' && k === TASKS - 1 ? 'FAULTED' : status === 'RUNNING' && k === TASKS - 1 ? 'RUNNING' : 'COMPLETED';
      const ts = start + k * 100;
      const te = taskStatus === 'RUNNING' ? null : ts + 50 + ((i + k) % 1000);
      yield [names.taskExecutions, `${id}:do/${k}/t`, {
        id: `${id}:do/${k}/t`, instance_id: id, workflow_name: name, workflow_namespace: 'bench', workflow_version: '1.0.0', task_position: `do/${k}/t`, task_name: `t${k}`,
        status: taskStatus, start_time_us: ts, end_time_us: te, duration_us: te === null ? null : te - ts, start_time: microsToIso(ts), end_time: te === null ? null : microsToIso(te),
        ...payload(i).empty, input: null, input_json: null, output: null, output_json: null, output_leaves: [], output_leaves_complete: true, output_paths: [], output_numbers: [], output_paths_complete: true,
        error: null, execution_index: 1, placeholder: false,
      }];
    }
  }
}

async function load(): Promise<void> {
  await applyNormalizedIndices(client, prefix);
  let body: Record<string, unknown>[] = [];
  const flush = async (): Promise<void> => {
    if (body.length === 0) return;
    const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: body });
    if ((response.body as { errors: boolean }).errors) throw new Error(`bulk refused: ${JSON.stringify((response.body as { items: unknown[] }).items.slice(0, 1))}`);
    body = [];
  };
  for (const [index, id, doc] of documents()) {
    body.push({ index: { _index: index, _id: id } }, doc);
    if (body.length >= 10_000) await flush();
  }
  await flush();
  await client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh` });
}

async function timed(label: string, repeat: number, run: () => Promise<unknown>): Promise<void> {
  await run(); // warm
  const ms: number[] = [];
  let answer: unknown;
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    answer = await run();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const median = ms[Math.floor(ms.length / 2)]!;
  console.info(`${label.padEnd(62)} median ${median.toFixed(1).padStart(7)} ms  max ${ms.at(-1)!.toFixed(1).padStart(7)} ms  ${JSON.stringify(answer).slice(0, 60)}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  await load();
  console.info(`loaded ${RUNS} runs, ${RUNS * TASKS} task executions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const reader = createOpenSearchReader({ client: new Client({ node: URL }), prefix });
  const x = reader;
  const list = (filter: InstanceFilter | null, orderBy: { field: 'duration' | 'id'; direction: 'ASC' | 'DESC' }[] = []) =>
    x.listInstances({ filter, orderBy, limit: 20, offset: 0, payloads: false }).then((rows) => rows.length);
  const tasks = (filter: TaskFilter | null) => x.listTasks({ filter, orderBy: [], limit: 20, offset: 0, payloads: false }).then((rows) => rows.length);
  const s = (field: 'status' | 'taskName', value: string) => ({ kind: 'string' as const, field, predicate: { op: 'eq' as const, value } });
  const R = 7;
  await timed('floor: 20 instances, match_all', R, () => client.search({ index: names.workflowInstances, body: { size: 20, query: { match_all: {} } } }).then(() => 20));
  await timed('countWorkflowInstances (all)', R, () => x.countInstances(null, { exactLimit: 10_000 }));
  await timed('workflowInstanceStatusCounts (all)', R, () => x.countInstancesByStatus(null, { exactLimit: 10_000 }).then((c) => c.FAULTED));
  await timed('countTaskExecutions (status COMPLETED)', R, () => x.countTasks(s('status', 'COMPLETED'), { exactLimit: 10_000 }));
  await timed('orderBy duration DESC, 20 rows', R, () => list(null, [{ field: 'duration', direction: 'DESC' }]));
  await timed('filter duration > 4000 ms', R, () => list({ kind: 'duration', predicate: { op: 'gt', value: 4000 } }));
  await timed('input gt amount 4990 (JSON number range)', R, () => list({ kind: 'jsonOp', field: 'input', path: ['amount'], predicate: { op: 'gt', value: '4990' } }));
  await timed('input exists orderId', R, () => list({ kind: 'jsonOp', field: 'input', path: ['orderId'], predicate: { op: 'exists', value: true } }));
  await timed('tasks of workflowName wf-3 (denormalized)', R, () => tasks({ kind: 'instance', node: { kind: 'string', field: 'name', predicate: { op: 'eq', value: 'wf-3' } } }));
  const faultedRuns = Math.ceil(RUNS / 5);
  await timed(`taskExecutions FAULTED t${TASKS - 1} (${faultedRuns} runs)`, R, () => list({ kind: 'tasks', node: { kind: 'and', nodes: [s('status', 'FAULTED'), s('taskName', `t${TASKS - 1}`)] } }));
  await timed(`taskExecutions FAULTED of wf-3 (${RUNS / 100} runs)`, R, () => list({ kind: 'tasks', node: { kind: 'and', nodes: [s('status', 'FAULTED'), { kind: 'instance', node: { kind: 'string', field: 'name', predicate: { op: 'eq', value: 'wf-3' } } }] } }));
  await timed('count: not taskExecutions FAULTED', R, () => x.countInstances({ kind: 'not', node: { kind: 'tasks', node: s('status', 'FAULTED') } }, { exactLimit: 10_000 }));
  const t = performance.now();
  const broad = await list({ kind: 'tasks', node: s('status', 'COMPLETED') }).then(() => 'answered', (e: Error) => `refused: ${e.message.slice(0, 90)}…`);
  console.info(`taskExecutions COMPLETED (every run): ${broad} in ${(performance.now() - t).toFixed(0)} ms`);
  await reader.close();
}

try {
  await main();
} finally {
  await client.transport.request({ method: 'DELETE', path: `/${prefix}*` }, { ignore: [404] });
  await client.close();
}
