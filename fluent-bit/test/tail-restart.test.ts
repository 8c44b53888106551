// What a Fluent Bit restart re-reads (../shared/reference/fluent-bit-observed.md, item 8 and 10): our configuration
// tails the kubelet's files under /var/log/pods, so the position database keeps every offset across restarts and a
// restart reads only what was written since. The layout it replaced (the /var/log/containers symlinks with
// DB.compare_filename true) is kept here as the model of what 4.0.13 did with it: every position deleted as stale at
// start-up and every retained log read again. A rotation while Fluent Bit is down loses the old file's unread tail.
import { describe, expect, it } from 'vitest';
import { loadFluentBitConfig } from '../model/load-config.js';
import { type PodMetadata, createPipeline } from '../model/pipeline.js';
import { NodeLogs, TailDatabase, startTail } from '../model/tail-input.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ClassicConfig, parseClassicConfig } from '../model/classic-config.js';
import { workflowAppOutput } from '../../e2e/support/workflow-app-output.js';
import { containerLogPath, criLogFile, podLogPath } from '@workflow-index/testkit';
import { deployedEnvironment } from './support/deployed-environment.js';
import { openSearchEnvironment } from './support/opensearch-environment.js';

const POD = 'order-app-5d8f7c9b6-x2x7q';
const METADATA: PodMetadata = { podId: '3f0c6a2e-7d1b-4e55-9a43-0c1d2e3f4a5b', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' };
const FILE = podLogPath(POD, 'workflows', 'app');
const LINK = containerLogPath(POD, 'workflows', 'app');

type Backend = 'postgresql' | 'opensearch';
const environmentOf = (backend: Backend): Record<string, string | undefined> => (backend === 'postgresql' ? deployedEnvironment() : openSearchEnvironment());

function configOf(backend: Backend, edit?: (text: string) => string): { config: ClassicConfig; parsers: ClassicConfig } {
  const { config, parsers, directory } = loadFluentBitConfig(backend);
  const text = readFileSync(join(directory, 'fluent-bit.conf'), 'utf8');
  return { config: edit === undefined ? config : parseClassicConfig(edit(text), config.source), parsers };
}

/** A new Fluent Bit process (its filters' state starts empty) on the node's position database. */
function processOf(backend: Backend, edit?: (text: string) => string) {
  const { config, parsers } = configOf(backend, edit);
  return () => createPipeline({ config, parsers, env: environmentOf(backend), podMetadata: () => METADATA, now: () => 1_900_000_000 });
}

/** The configuration this release replaced: the symlinks under /var/log/containers, the default tag regex. */
const SYMLINK_LAYOUT = (text: string): string => text
  .replace(/Path {14}\/var\/log\/pods\/\$\{WORKFLOW_NAMESPACE\}_\*_\*\/\*\/\*\.log/, 'Path              /var/log/containers/*_${WORKFLOW_NAMESPACE}_*.log')
  .replace(/Kube_Tag_Prefix {6}kube\.var\.log\.pods\.\n {4}Regex_Parser {9}kube_pod_log_tag\n/, 'Kube_Tag_Prefix      kube.var.log.containers.\n');

function eventCount(results: ReturnType<ReturnType<typeof startTail>['read']>): number {
  return results.reduce((n, r) => n + r.delivered.length, 0);
}

describe.each<Backend>(['postgresql', 'opensearch'])('tail positions across restarts (%s)', (backend) => {
  const app = workflowAppOutput();
  const cut = Math.floor(app.length / 2);
  const first = criLogFile(app.slice(0, cut));
  const second = criLogFile(app.slice(cut), { startMicros: 1_778_577_241_000_000 + 137 * cut });
  const total = eventCount([createPipeline({ ...configOf(backend), env: environmentOf(backend), podMetadata: () => METADATA }).readLogFile(FILE, criLogFile(app).content)]);

  it('tails the kubelet\'s file under /var/log/pods and finds its pod\'s metadata in that path', () => {
    const pipeline = processOf(backend)();
    expect(pipeline.watches(FILE)).toBe(true);
    expect(pipeline.watches(LINK)).toBe(false);
    expect(pipeline.watches(podLogPath(POD, 'default', 'app'))).toBe(false);
    expect(pipeline.watches(`${FILE}.20261129-121212`)).toBe(false);
    expect(pipeline.watches(`${FILE}.20261129-121212.gz`)).toBe(false);
    const [delivered] = pipeline.readLogFile(FILE, first.content).delivered;
    expect(delivered!.record['kubernetes']).toMatchObject({ pod_name: POD, namespace_name: 'workflows', pod_id: METADATA.podId, labels: METADATA.labels, container_name: 'app' });
  });

  it('a restart reads only what was written since: every event once, no stored position discarded', () => {
    const node = new NodeLogs();
    const db = new TailDatabase();
    const start = processOf(backend);
    node.append(FILE, first.content);
    node.link(LINK, FILE);
    const run1 = startTail(start(), node, db);
    const before = eventCount(run1.read());
    node.append(FILE, second.content);
    const run2 = startTail(start(), node, db);
    const after = eventCount(run2.read());
    expect(run2.log).toEqual([]);
    expect(run2.reads).toEqual([{ name: FILE, from: first.content.length, bytes: second.content.length }]);
    expect([before, after, before + after]).toEqual([expect.any(Number), expect.any(Number), total]);
    expect(before).toBeGreaterThan(0);
  });

  it('model fidelity: on the /var/log/containers symlinks with DB.compare_filename true, every restart discarded every position and read every file again', () => {
    const node = new NodeLogs();
    const db = new TailDatabase();
    const start = processOf(backend, SYMLINK_LAYOUT);
    node.append(FILE, first.content);
    node.link(LINK, FILE);
    const run1 = startTail(start(), node, db);
    const before = eventCount(run1.read());
    node.append(FILE, second.content);
    const run2 = startTail(start(), node, db);
    const after = eventCount(run2.read());
    expect(run2.log).toEqual([`db: stale file deleted from database: ${LINK}`]);
    expect(run2.reads).toEqual([{ name: LINK, from: 0, bytes: first.content.length + second.content.length }]);
    expect([before, after]).toEqual([before, total]);
    // With DB.compare_filename false the offsets held (the observation's other run).
    const kept = processOf(backend, (t) => SYMLINK_LAYOUT(t).replace('DB.compare_filename true', 'DB.compare_filename false'));
    const db2 = new TailDatabase();
    startTail(kept(), node, db2).read();
    node.append(FILE, criLogFile(app.slice(0, 3), { startMicros: 1_778_577_300_000_000 }).content);
    expect(eventCount(startTail(kept(), node, db2).read())).toBe(eventCount([kept().readLogFile(LINK, criLogFile(app.slice(0, 3)).content)]));
  });

  it('a rotation while running loses nothing; a rotation while Fluent Bit is down loses the old file\'s unread tail', () => {
    const start = processOf(backend);
    const running = new NodeLogs();
    const db = new TailDatabase();
    running.append(FILE, first.content.subarray(0, first.content.indexOf(0x0a) + 1));
    const run = startTail(start(), running, db);
    let delivered = eventCount(run.read());
    running.append(FILE, first.content.subarray(first.content.indexOf(0x0a) + 1));
    running.rotate(FILE, '20261129-121212');
    running.append(FILE, second.content);
    delivered += eventCount(run.read());
    expect(delivered).toBe(total);
    expect(db.entries.map((e) => e.name)).toEqual([FILE]);

    const down = new NodeLogs();
    const db2 = new TailDatabase();
    down.append(FILE, first.content.subarray(0, first.content.indexOf(0x0a) + 1));
    let kept = eventCount(startTail(start(), down, db2).read());
    down.append(FILE, first.content.subarray(first.content.indexOf(0x0a) + 1));
    down.rotate(FILE, '20261129-121212');
    down.append(FILE, second.content);
    const restarted = startTail(start(), down, db2);
    kept += eventCount(restarted.read());
    const unreadTail = eventCount([start().readLogFile(FILE, first.content)]) - eventCount([start().readLogFile(FILE, first.content.subarray(0, first.content.indexOf(0x0a) + 1))]);
    expect(unreadTail).toBeGreaterThan(0);
    expect(kept).toBe(total - unreadTail);
    expect(restarted.log).toEqual([`db: stale file deleted from database: ${FILE}`]);
  });
});

describe('a split line pending when Fluent Bit stops (postgresql)', () => {
  it('the P part held at the stop is lost; the F part read after the restart reaches the raw tables marked as an orphan, not dropped', () => {
    const line = `{"eventType":"io.serverlessworkflow.workflow.started.v1","instanceId":"split-1","timestamp":1778577243.5,"input":{"notes":"${'x'.repeat(300)}"}}`;
    const file = criLogFile([{ stream: 'stdout', text: line }], { maxLineBytes: 200 });
    const [p1, p2] = [file.content.indexOf(0x0a) + 1, file.content.indexOf(0x0a, file.content.indexOf(0x0a) + 1) + 1];
    const node = new NodeLogs();
    const db = new TailDatabase();
    const start = processOf('postgresql');
    node.append(FILE, file.content.subarray(0, p1));
    const first = startTail(start(), node, db).read();
    expect(first.flatMap((r) => r.delivered)).toEqual([]);
    node.append(FILE, file.content.subarray(p1));
    const results = startTail(start(), node, db).read();
    const after = results.flatMap((r) => r.delivered);
    expect(results.flatMap((r) => r.dropped.map((d) => d.stage))).toEqual([]);
    expect(p2).toBeGreaterThan(p1);
    // Three parts (P, P, F): the first was held by the stopped process; the other two are joined and marked.
    expect(file.lines.map((l) => l.partial)).toEqual([true, true, false]);
    expect(after.map((d) => [d.output, d.tag, d.record['wi_join_orphan']])).toEqual([
      ['workflow_events', 'workflow-index.unparsed', String(Buffer.byteLength(line) - 200)],
    ]);
  });
});
