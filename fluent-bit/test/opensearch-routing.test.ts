// The OpenSearch configuration routes like the PostgreSQL one, over generated container logs: every line goes to
// the output of the same name under the same tag, or is dropped by the same filter, whatever its event type, stream,
// pod labels, metadata lookup or extra fields (an event's own top-level `kubernetes` field included: both rename it
// `wi_event_kubernetes`, so neither loses its value or takes it for the pod's metadata).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadFluentBitConfig } from '../model/load-config.js';
import { type PodMetadata, createPipeline } from '../model/pipeline.js';
import { printFluentJson } from '../model/flb-json-printer.js';
import { podLogPath, criLogFile } from '@workflow-index/testkit';
import { openSearchEnvironment } from './support/opensearch-environment.js';
import { deployedEnvironment } from './support/deployed-environment.js';

const LOG_PATH = podLogPath('order-app-5d8f7c9b6-x2x7q', 'workflows', 'app');
const opensearch = loadFluentBitConfig('opensearch');
const postgresql = loadFluentBitConfig('postgresql');

const KINDS = ['workflow.started', 'workflow.completed', 'workflow.faulted', 'workflow.cancelled', 'workflow.suspended', 'workflow.resumed',
  'workflow.status-changed', 'task.started', 'task.completed', 'task.faulted', 'task.cancelled', 'task.suspended', 'task.resumed', 'task.retried',
  'workflow.correlation-started', 'lifecycle.ping'];

const extraField = fc.tuple(fc.constantFrom('input', 'output', 'status', 'note', 'a.b', '_id', '_routing', '@timestamp', 'wi', 'kubernetes', 'wi_event_kubernetes', '', '.x', 'time', 'stream', 'log'), fc.jsonValue({ maxDepth: 2 }));
const line = fc.oneof(
  { weight: 6, arbitrary: fc.record({
    prefix: fc.constantFrom('io.serverlessworkflow', 'org.openworkflow'),
    kind: fc.constantFrom(...KINDS),
    extras: fc.array(extraField, { maxLength: 3 }),
    stream: fc.constantFrom('stdout' as const, 'stderr' as const),
    truncate: fc.boolean(),
  }).map(({ prefix, kind, extras, stream, truncate }) => {
    const text = `{"eventType":"${prefix}.${kind}.v1","instanceId":"I1","timestamp":1.7785772435E9${extras.map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`).join('')}}`;
    return { stream, text: truncate ? text.slice(0, -1) : text };
  }) },
  { weight: 1, arbitrary: fc.constantFrom('INFO started in 1.2s', '{"level":"INFO","message":"x"}', '{"message":{"eventType":"io.serverlessworkflow.task.started.v1"}}', '')
    .map((text) => ({ stream: 'stdout' as const, text })) },
);

const metadata = fc.option(fc.record({
  podId: fc.constant('3f0c6a2e'),
  labels: fc.constantFrom<Record<string, string>>({}, { 'workflow-index/enabled': 'false' }, { 'workflow-index/enabled': 'true' }),
  host: fc.constant('node-1'),
  containerImage: fc.constant('acme/app:1'),
}), { nil: undefined });

const route = (backend: typeof opensearch, env: Record<string, string>, meta: PodMetadata | undefined, content: Buffer): string[] => {
  const result = createPipeline({ config: backend.config, parsers: backend.parsers, env, podMetadata: () => meta, now: () => 1_900_000_000 }).readLogFile(LOG_PATH, content);
  const byLine = new Map<number, string>();
  for (const d of result.delivered) byLine.set(d.sourceLines[0]!, `${d.output} ${d.tag}`);
  for (const d of result.dropped) byLine.set(d.sourceLines[0]!, `dropped: ${d.stage}`);
  return [...byLine.entries()].sort(([a], [b]) => a - b).map(([n, where]) => `${n} ${where}`);
};

describe('fluent-bit/opensearch routes like fluent-bit/postgresql', () => {
  it('sends every generated line to the same output and tag, or drops it at the same filter', () => {
    fc.assert(fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), metadata, fc.constantFrom('^io\\.serverlessworkflow\\.', '^(io\\.serverlessworkflow|org\\.openworkflow)\\.'), (lines, meta, regex) => {
      const content = criLogFile(lines).content;
      const ours = route(opensearch, openSearchEnvironment({ WORKFLOW_EVENT_TYPE_REGEX: regex }), meta, content);
      const theirs = route(postgresql, deployedEnvironment({ WORKFLOW_EVENT_TYPE_REGEX: regex }), meta, content);
      expect(ours).toEqual(theirs);
    }), { numRuns: 200 });
  });

  it('delivers an event with its own kubernetes field on both, keeping its value beside the pod\'s metadata', () => {
    const content = criLogFile([{ stream: 'stdout', text: '{"eventType":"io.serverlessworkflow.task.started.v1","instanceId":"I1","kubernetes":{"x":1}}' }]).content;
    const meta: PodMetadata = { podId: '3f0c6a2e', labels: {}, host: 'node-1', containerImage: 'acme/app:1' };
    expect(route(opensearch, openSearchEnvironment(), meta, content)).toEqual(['1 task_events workflow-index.task']);
    expect(route(postgresql, deployedEnvironment(), meta, content)).toEqual(['1 task_events workflow-index.task']);
    const without = createPipeline({ config: postgresql.config, parsers: postgresql.parsers, env: deployedEnvironment(), podMetadata: () => meta, luaScripts: { 'event-kubernetes.lua': () => () => ({ code: 0 }) } });
    // Without the rename the record accessor reads the filter's `kubernetes` (the last one), so the event is delivered,
    // but the printer keeps only that last one: the event's value is lost. (This test used to expect a drop at
    // require_pod_metadata: the model read the first of a repeated key.)
    const delivered = without.readLogFile(LOG_PATH, content).delivered;
    expect(delivered.map((d) => d.tag)).toEqual(['workflow-index.task']);
    expect(printFluentJson(delivered[0]!.value)).not.toContain('"x":1');
    expect(printFluentJson(createPipeline({ config: postgresql.config, parsers: postgresql.parsers, env: deployedEnvironment(), podMetadata: () => meta }).readLogFile(LOG_PATH, content).delivered[0]!.value)).toContain('"wi_event_kubernetes":{"x":1}');
  });
});
