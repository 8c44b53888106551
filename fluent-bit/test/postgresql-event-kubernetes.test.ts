// An event with its own top-level `kubernetes` member, through the model of fluent-bit/postgresql (both Fluent Bit
// versions) into a migrated database as the forwarder login: event-kubernetes.lua renames the member
// `wi_event_kubernetes`, so require_pod_metadata and the opt-out label read the kubernetes filter's metadata, never the
// event's, and the event's value reaches the raw row. Without it, the JSON printer drops the event's member (the
// filter's `kubernetes` comes later), and when the pod lookup fails an event claiming a pod_id passes the fail-closed
// rule and the opt-out label of its pod.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarderDatabase, postgresReachable, type ForwarderDatabase } from '@workflow-index/postgresql/testing';
import { loadFluentBitConfig } from '../model/load-config.js';
import { FLUENT_BIT_VERSIONS } from '../model/flb-json-parser.js';
import { createPipeline, type PodMetadata, type PodReference } from '../model/pipeline.js';
import { flushStatements, startupStatements } from '../model/pgsql-output.js';
import { podLogPath, criLogFile } from '@workflow-index/testkit';
import { deployedEnvironment } from './support/deployed-environment.js';

const available = await postgresReachable();
if (!available && process.env['CI'] === 'true') throw new Error('PostgreSQL is required in CI (WI_TEST_DATABASE_URL)');

const WF = 'io.serverlessworkflow.workflow';
const TASK = 'io.serverlessworkflow.task';
const ID = '01KRDQDZBR7492YQWM736PEK8S';
const OPTED_OUT_ID = '01KRDQDZBR7492YQWM736PEK9T';
const head = (kind: string, id: string): string => `"eventType":"${WF}.${kind}.v1","instanceId":"${id}","workflowNamespace":"com.acme","workflowName":"order","workflowVersion":"1.0.0"`;
const LINES = [
  `{${head('started', ID)},"timestamp":1.7785772435E9,"kubernetes":{"cluster":"eu-1"},"input":{"orderId":"A-1"}}`,
  `{"eventType":"${TASK}.started.v1","instanceId":"${ID}","taskName":"validate","taskPosition":"do/0/validate","timestamp":1.7785772436E9,"\\u006bubernetes":"escaped name"}`,
  `{"eventType":"${TASK}.completed.v1","instanceId":"${ID}","taskName":"validate","taskPosition":"do/0/validate","timestamp":1.7785772437E9,"output":{"kubernetes":"nested: untouched"}}`,
  // The event's own value and an earlier member of the new name: the last one stays (jsonb), as on OpenSearch.
  `{${head('completed', ID)},"timestamp":1.7785772438E9,"wi_event_kubernetes":"first","kubernetes":{"pod_id":"forged"},"output":{"ok":true}}`,
];
// An opted-out pod whose event claims another pod's identity and labels: still kept out.
const OPTED_OUT_LINE = `{${head('started', OPTED_OUT_ID)},"timestamp":1.7785772435E9,"kubernetes":{"pod_id":"forged","labels":{"workflow-index/enabled":"true"}}}`;

const metadata = (pod: PodReference): PodMetadata => ({
  podId: `uid-${pod.podName}`,
  labels: pod.podName.startsWith('opted-out') ? { 'workflow-index/enabled': 'false' } : { app: 'order-app' },
  host: 'node-1',
  containerImage: 'acme/order-app:1.0.0',
});

describe.skipIf(!available).each(FLUENT_BIT_VERSIONS)('an event with its own kubernetes field, Fluent Bit %s model → PostgreSQL', (version) => {
  const { config, parsers } = loadFluentBitConfig('postgresql');
  const pipelineWith = (luaScripts = {}) => createPipeline({ config, parsers, env: deployedEnvironment(), version, now: () => 1_900_000_000, podMetadata: metadata, luaScripts });
  const file = criLogFile(LINES.map((text) => ({ stream: 'stdout' as const, text })), { startMicros: 1_778_577_243_512_700 }).content;
  const optedOut = criLogFile([{ stream: 'stdout', text: OPTED_OUT_LINE }]).content;
  let forwarder: ForwarderDatabase;
  beforeAll(async () => {
    forwarder = await createForwarderDatabase('wi_fb_event_kubernetes');
  });
  afterAll(async () => forwarder?.drop());

  // The record accessor reads the LAST `kubernetes` (src/flb_ra_key.c), the filter's, and the printer prints only that
  // one. (This test used to expect the event to be dropped at require_pod_metadata: the model read the first.)
  it('without event-kubernetes.lua the event\'s own member is lost from the output, and when the pod lookup fails a forged pod_id passes the fail-closed rule and the opt-out', () => {
    const noLua = { 'event-kubernetes.lua': () => () => ({ code: 0 as const }) };
    const without = pipelineWith(noLua);
    const result = without.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), file);
    expect([result.dropped, result.delivered.length]).toEqual([[], LINES.length]);
    const sql = flushStatements(without, result.delivered, 1000).map((f) => f.sql).join('\n');
    expect(sql).not.toContain('eu-1');
    expect(sql).not.toContain('forged');
    expect(without.readLogFile(podLogPath('opted-out-1', 'workflows', 'app'), optedOut).delivered).toHaveLength(0);
    const lookupFails = createPipeline({ config, parsers, env: deployedEnvironment(), version, now: () => 1_900_000_000, podMetadata: () => undefined, luaScripts: noLua });
    expect(lookupFails.readLogFile(podLogPath('opted-out-1', 'workflows', 'app'), optedOut).delivered).toHaveLength(1);
    const withLua = createPipeline({ config, parsers, env: deployedEnvironment(), version, now: () => 1_900_000_000, podMetadata: () => undefined });
    expect(withLua.readLogFile(podLogPath('opted-out-1', 'workflows', 'app'), optedOut).dropped.map((d) => d.stage)).toEqual(['filter require_pod_metadata']);
  });

  it('keeps every event: the member renamed wi_event_kubernetes, the pod\'s metadata under kubernetes; the instance is normalized', async () => {
    const pipeline = pipelineWith();
    const result = pipeline.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), file);
    expect([result.dropped, result.delivered.length]).toEqual([[], LINES.length]);
    const { client, db } = forwarder;
    for (const sql of startupStatements(pipeline)) await client.query(sql);
    for (const flush of flushStatements(pipeline, result.delivered, 1000)) await client.query(flush.sql);

    // What the normalizer sees in the raw rows: the event's own value beside the pod's metadata.
    const raw = await db.pool.query(`SELECT data->>'eventType' AS kind, data->'wi_event_kubernetes' AS own, data->'kubernetes'->>'pod_id' AS pod
      FROM (SELECT data, time FROM workflow_raw.workflow_events_raw UNION ALL SELECT data, time FROM workflow_raw.task_events_raw) r ORDER BY time`);
    expect(raw.rows).toEqual([
      { kind: `${WF}.started.v1`, own: { cluster: 'eu-1' }, pod: 'uid-order-app-1' },
      { kind: `${TASK}.started.v1`, own: 'escaped name', pod: 'uid-order-app-1' },
      { kind: `${TASK}.completed.v1`, own: null, pod: 'uid-order-app-1' },
      { kind: `${WF}.completed.v1`, own: { pod_id: 'forged' }, pod: 'uid-order-app-1' },
    ]);
    const instance = await db.pool.query(`SELECT status, input, output FROM workflow_index.workflow_instances WHERE id = $1`, [ID]);
    expect(instance.rows).toEqual([{ status: 'COMPLETED', input: { orderId: 'A-1' }, output: { ok: true } }]);
    const tasks = await db.pool.query(`SELECT status, output FROM workflow_index.task_executions WHERE instance_id = $1`, [ID]);
    expect(tasks.rows).toEqual([{ status: 'COMPLETED', output: { kubernetes: 'nested: untouched' } }]);
    const errors = await db.pool.query('SELECT count(*)::int AS n FROM workflow_index.ingest_errors');
    expect(errors.rows[0].n).toBe(0);
  }, 120_000);

  it('an opted-out pod stays out whatever its event claims', () => {
    const result = pipelineWith().readLogFile(podLogPath('opted-out-1', 'workflows', 'app'), optedOut);
    expect([result.delivered.length, result.dropped.map((d) => d.stage)]).toEqual([0, ['filter skip_opted_out_pods']]);
  });
});
