// Where every line a workflow pod prints ends up, according to fluent-bit/postgresql run through the pipeline
// model: lifecycle events into workflow_events_raw / task_events_raw (all 14 event types), everything else
// dropped by the eventType filter; lines the runtime split at 16 KiB are joined before parsing.
import { describe, expect, it } from 'vitest';
import { loadFluentBitConfig } from '../model/load-config.js';
import { type PodMetadata, createPipeline } from '../model/pipeline.js';
import { parseRfc3339 } from '../model/builtin-multiline.js';
import { flushStatements } from '../model/pgsql-output.js';
import { type AppLine, LARGE_EVENT_INSTANCE, asciiPackingNotes, workflowAppOutput } from '../../e2e/support/workflow-app-output.js';
import { RUNTIME_MAX_LINE_BYTES, podLogPath, criLogFile, criTimestamp, dockerJsonLogFile } from '@workflow-index/testkit';
import { deployedEnvironment } from './support/deployed-environment.js';

const { config, parsers } = loadFluentBitConfig('postgresql');
const POD = 'order-app-5d8f7c9b6-x2x7q';
const LOG_PATH = podLogPath(POD, 'workflows', 'app');
const METADATA: PodMetadata = { podId: '3f0c6a2e-7d1b-4e55-9a43-0c1d2e3f4a5b', labels: { app: 'order-app' }, host: 'kind-worker', containerImage: 'registry.example/acme/order-app:1.0.0' };

/** `metadata: null` stands for a failed API lookup. */
function pipelineWith(overrides: Record<string, string> = {}, metadata: PodMetadata | null = METADATA) {
  return createPipeline({ config, parsers, env: deployedEnvironment(overrides), podMetadata: () => metadata ?? undefined, now: () => 1_900_000_000 });
}

type Destination = 'workflow_events' | 'task_events' | 'dropped: filter keep_lifecycle_events';

function expectedDestination(line: AppLine): Destination {
  if (line.kind !== 'event') return 'dropped: filter keep_lifecycle_events';
  return (JSON.parse(line.text) as { eventType: string }).eventType.includes('.task.') ? 'task_events' : 'workflow_events';
}

/** Destination of each printed line, from the pipeline's delivered and dropped records. */
function destinations(lines: readonly AppLine[], physicalToSource: (line: number) => number, result: ReturnType<ReturnType<typeof pipelineWith>['readLogFile']>): string[][] {
  const byLine = lines.map(() => [] as string[]);
  for (const d of result.delivered) byLine[physicalToSource(d.sourceLines[0]!)]!.push(d.output);
  for (const d of result.dropped) byLine[physicalToSource(d.sourceLines[0]!)]!.push(`dropped: ${d.stage}`);
  return byLine;
}

describe('routing of a workflow pod\'s CRI log (containerd, CRI-O)', () => {
  const app = workflowAppOutput();
  const file = criLogFile(app);
  const pipeline = pipelineWith();
  const result = pipeline.readLogFile(LOG_PATH, file.content);
  const source = (line: number): number => file.lines[line - 1]!.source;

  it('sends each lifecycle event to its raw table exactly once and drops every other line at the eventType filter', () => {
    expect(destinations(app, source, result)).toEqual(app.map((l) => [expectedDestination(l)]));
    const count = (output: string) => result.delivered.filter((d) => d.output === output).length;
    expect([count('workflow_events'), count('task_events'), result.dropped.length]).toEqual([36, 44, 14]);
    expect(new Set(result.delivered.filter((d) => d.output === 'task_events').map((d) => d.tag))).toEqual(new Set(['workflow-index.task']));
    expect(new Set(result.delivered.filter((d) => d.output === 'workflow_events').map((d) => d.tag))).toEqual(new Set(['workflow-index.workflow']));
  });

  it('drops each kind of noise: banner, log lines, JSON logs (even with eventType nested), foreign events, the serialization-error line, stderr', () => {
    const dropped = result.dropped.map((d) => app[source(d.sourceLines[0]!)]!.kind).sort();
    expect(dropped).toEqual(['app-json', 'app-json', 'app-log', 'app-log', 'banner', 'banner', 'banner', 'banner', 'banner', 'banner', 'foreign-event', 'serialization-error', 'stderr', 'stderr']);
  });

  it('joins the event line the runtime split into P, P, F parts — inside multi-byte characters — before parsing it', () => {
    const index = app.findIndex((l) => l.kind === 'event' && l.text.includes(LARGE_EVENT_INSTANCE) && l.text.includes('workflow.started'));
    const bytes = Buffer.from(app[index]!.text, 'utf8');
    expect(bytes.length).toBeGreaterThan(2 * RUNTIME_MAX_LINE_BYTES);
    const parts = file.lines.filter((l) => l.source === index);
    expect(parts.map((p) => p.partial)).toEqual([true, true, false]);
    // The split falls inside a character: neither the first part nor the rest decode on their own.
    expect(bytes[RUNTIME_MAX_LINE_BYTES]! & 0xc0).toBe(0x80);
    const delivered = result.delivered.filter((d) => d.sourceLines.some((l) => source(l) === index));
    expect(delivered.map((d) => [d.output, d.sourceLines])).toEqual([['workflow_events', parts.map((p) => p.line)]]);
    expect(delivered[0]!.record['input']).toEqual((JSON.parse(app[index]!.text) as { input: unknown }).input);
  });

  it('keeps the event fields, the runtime fields and the pod metadata in the record; the record time is the runtime timestamp', () => {
    const first = result.delivered[0]!;
    const printed = JSON.parse(app[source(first.sourceLines[0]!)]!.text) as Record<string, unknown>;
    const time = criTimestamp(1_778_577_241_000_000 + 137 * source(first.sourceLines[0]!));
    expect(first.record).toEqual({
      ...printed,
      time,
      stream: 'stdout',
      _p: 'F',
      kubernetes: { pod_name: POD, namespace_name: 'workflows', pod_id: METADATA.podId, labels: { app: 'order-app' }, host: 'kind-worker', container_name: 'app', container_image: METADATA.containerImage },
    });
    expect(first.time).toBe(parseRfc3339(time));
    // The pgsql output's `date` carries that time into the raw table's `time` column.
    const [flush] = flushStatements(pipeline, [first]);
    expect(flush!.sql).toContain(`"wi_record_time":${parseRfc3339(time)}`);
    expect(flush!.sql.startsWith('INSERT INTO "workflow_events_raw" SELECT \'workflow-index.workflow\', to_timestamp(CAST(value->>\'wi_record_time\' as FLOAT)), * FROM json_array_elements(')).toBe(true);
  });

  it('writes one INSERT per chunk of a tag, in arrival order, as the pgsql output flushes', () => {
    const flushes = flushStatements(pipeline, result.delivered, 10);
    expect(flushes.map((f) => [f.table, f.records.length])).toEqual([
      ['workflow_events_raw', 10], ['task_events_raw', 10], ['task_events_raw', 10], ['workflow_events_raw', 10],
      ['task_events_raw', 10], ['workflow_events_raw', 10], ['task_events_raw', 10], ['workflow_events_raw', 6], ['task_events_raw', 4],
    ]);
    const sent = flushes.flatMap((f) => f.records.map((r) => r.sourceLines[0]));
    expect([...sent].sort((a, b) => a! - b!)).toEqual(result.delivered.map((d) => d.sourceLines[0]).sort((a, b) => a! - b!));
  });
});

describe('a docker json-file log (dockershim, removed in Kubernetes 1.24) is not read as events', () => {
  it('delivers each line naming an eventType as an unparsed row (recorded in ingest_errors), never as an event', () => {
    const app = workflowAppOutput(asciiPackingNotes());
    const file = dockerJsonLogFile(app);
    const result = pipelineWith().readLogFile(LOG_PATH, file.content);
    // The CRI regex does not match; the JSON parser unwraps docker's envelope into {log, stream, time}, whose
    // `log` is the event text: the unparsed-line rule keeps it.
    const naming = file.content.toString('utf8').split('\n').filter((l) => l !== '' && (JSON.parse(l) as { log: string }).log.includes('"eventType"'));
    expect(result.delivered.map((d) => [d.output, d.tag, 'eventType' in d.record])).toEqual(naming.map(() => ['workflow_events', 'workflow-index.unparsed', false]));
    // 80 event lines (the split one by its part holding eventType), the JSON log with a nested eventType, the foreign event.
    expect(naming.length).toBe(82);
  });
});

describe('routing rules', () => {
  const TYPES = [
    ['workflow.started', 'workflow_events'], ['workflow.completed', 'workflow_events'], ['workflow.faulted', 'workflow_events'],
    ['workflow.cancelled', 'workflow_events'], ['workflow.suspended', 'workflow_events'], ['workflow.resumed', 'workflow_events'],
    ['workflow.status-changed', 'workflow_events'], ['task.started', 'task_events'], ['task.completed', 'task_events'],
    ['task.faulted', 'task_events'], ['task.cancelled', 'task_events'], ['task.suspended', 'task_events'],
    ['task.resumed', 'task_events'], ['task.retried', 'task_events'],
  ] as const;
  const event = (eventType: string) => ({ stream: 'stdout' as const, text: JSON.stringify({ eventType, instanceId: '01KRDQDZBR7492YQWM736PEENJ', timestamp: 1.778577243512337e9 }) });
  const route = (lines: { stream: 'stdout' | 'stderr'; text: string }[], overrides: Record<string, string> = {}, metadata: PodMetadata | null = METADATA, path = LOG_PATH) => {
    const result = pipelineWith(overrides, metadata).readLogFile(path, criLogFile(lines).content);
    return [...result.delivered.map((d) => `${d.output} ${d.tag}`), ...result.dropped.map((d) => `dropped: ${d.stage}`)];
  };

  it('routes all 14 Quarkus Flow event types, task retried/cancelled/suspended/resumed included', () => {
    for (const [type, output] of TYPES) {
      expect(route([event(`io.serverlessworkflow.${type}.v1`)]), type).toEqual([`${output} workflow-index.${output === 'task_events' ? 'task' : 'workflow'}`]);
    }
  });

  it('stores prefixed events of unknown kinds in workflow_events_raw under their own tag (the normalizer reports them as ingest errors)', () => {
    expect(route([event('io.serverlessworkflow.workflow.correlation-started.v1')])).toEqual(['workflow_events workflow-index.workflow']);
    expect(route([event('io.serverlessworkflow.lifecycle.ping.v1')])).toEqual(['workflow_events workflow-index.unrecognized']);
  });

  it('follows WORKFLOW_EVENT_TYPE_REGEX, e.g. for a producer that moved to another prefix', () => {
    const lines = [event('org.openworkflow.task.started.v1'), event('io.serverlessworkflow.task.started.v1')];
    expect(route(lines, { WORKFLOW_EVENT_TYPE_REGEX: '^org\\.openworkflow\\.' })).toEqual(['task_events workflow-index.task', 'dropped: filter keep_lifecycle_events']);
    expect(route(lines, { WORKFLOW_EVENT_TYPE_REGEX: '^(io\\.serverlessworkflow|org\\.openworkflow)\\.' })).toEqual(['task_events workflow-index.task', 'task_events workflow-index.task']);
  });

  it('watches only the namespace in WORKFLOW_NAMESPACE', () => {
    const other = podLogPath('billing-7c9d-abcde', 'default', 'app');
    expect(pipelineWith().watches(other)).toBe(false);
    expect(route([event('io.serverlessworkflow.task.started.v1')], {}, METADATA, other)).toEqual([]);
    expect(pipelineWith({ WORKFLOW_NAMESPACE: 'default' }).watches(other)).toBe(true);
    expect(pipelineWith().watches(LOG_PATH)).toBe(true);
  });

  it('leaves out pods labelled workflow-index/enabled=false, and fails closed when pod metadata could not be fetched (observed defect 5), counting what it held back', () => {
    const line = [event('io.serverlessworkflow.workflow.started.v1')];
    expect(route(line, {}, { ...METADATA, labels: { 'workflow-index/enabled': 'false' } })).toEqual(['dropped: filter skip_opted_out_pods']);
    expect(route(line, {}, { ...METADATA, labels: { 'workflow-index/enabled': 'true' } })).toEqual(['workflow_events workflow-index.workflow']);
    // A failed lookup leaves the record without `kubernetes` (filter_kubernetes appends nothing): the label
    // cannot be checked, so the event is held back and counted under the filter's Alias.
    const result = pipelineWith({}, null).readLogFile(LOG_PATH, criLogFile([...line, ...line]).content);
    expect(result.delivered).toEqual([]);
    expect(result.dropped.map((d) => [d.stage, 'kubernetes' in d.record])).toEqual([['filter require_pod_metadata', false], ['filter require_pod_metadata', false]]);
    expect(result.filterDrops['require_pod_metadata']).toBe(2);
  });

  it('takes events from stderr too (the stream is not a filter), and holds a partial line the pod has not finished', () => {
    expect(route([{ ...event('io.serverlessworkflow.task.completed.v1'), stream: 'stderr' }])).toEqual(['task_events workflow-index.task']);
    const unfinished = Buffer.from(`${criTimestamp(1_778_577_241_000_000)} stdout P {"eventType":"io.serverlessworkflow.task.started.v1","instanceId":"X"\n`);
    const result = pipelineWith().readLogFile(LOG_PATH, unfinished);
    expect([result.delivered, result.dropped, result.held, result.filterDrops]).toEqual([[], [], [1], { join_split_lines: 1 }]);
  });
});
