// Places where the model of Fluent Bit used to be kinder than the pinned binary (4.0.13), each checked against the
// fluent/fluent-bit v4.0.13 sources: the record accessor reads the last of a repeated key, jsmn accepts bare values
// and strings JSON does not, and tail skips a physical line longer than Buffer_Max_Size. No database needed.
import { describe, expect, it } from 'vitest';
import { loadFluentBitConfig } from '../model/load-config.js';
import { createPipeline, longestReadableLine } from '../model/pipeline.js';
import { FLUENT_BIT_VERSIONS } from '../model/flb-json-parser.js';
import { podLogPath, criTimestamp } from '@workflow-index/testkit';
import { deployedEnvironment } from './support/deployed-environment.js';

const { config, parsers } = loadFluentBitConfig('postgresql');
const pipelineOf = (version: (typeof FLUENT_BIT_VERSIONS)[number]) => createPipeline({
  config, parsers, env: deployedEnvironment(), now: () => 1_900_000_000, version,
  podMetadata: () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
});
const ID = '01KRDQDZBR7492YQWM736PEENJ';
const cri = (lines: readonly string[]): Buffer =>
  Buffer.from(lines.map((l, i) => `${criTimestamp(1_778_577_243_512_700 + i * 1000)} stdout F ${l}\n`).join(''));
const run = (lines: readonly string[], version: (typeof FLUENT_BIT_VERSIONS)[number] = '4.0.13') =>
  pipelineOf(version).readLogFile(podLogPath('order-app-1', 'workflows', 'app'), cri(lines));

describe.each(FLUENT_BIT_VERSIONS)('record accessor on a repeated key (%s)', (version) => {
  // src/flb_ra_key.c ra_key_val_id(): `for (i = map_size - 1; i >= 0; i--)`: grep, rewrite_tag and the kubernetes
  // checks read the LAST entry; the printer (msgpack2json) and jsonb keep the last too.
  it('routes an event by the last of two eventType members', () => {
    const line = `{"eventType":"io.serverlessworkflow.task.started.v1","instanceId":"${ID}","taskPosition":"do/0/a","timestamp":1.7785772435E9,"eventType":"io.serverlessworkflow.workflow.completed.v1"}`;
    expect(run([line], version).delivered.map((d) => d.tag)).toEqual(['workflow-index.workflow']);
  });

  it('drops an event whose last eventType is not a lifecycle type (counted, no other trace)', () => {
    const line = `{"eventType":"io.serverlessworkflow.workflow.started.v1","instanceId":"${ID}","timestamp":1.7785772435E9,"eventType":"com.acme.audit"}`;
    const result = run([line], version);
    expect(result.delivered).toEqual([]);
    expect(result.dropped.map((d) => d.stage)).toEqual(['filter keep_lifecycle_events']);
    expect(result.filterDrops['keep_lifecycle_events']).toBe(1);
  });
});

describe('4.0.13 JSON parser (jsmn, JSMN_STRICT) after our line repair', () => {
  // lib/jsmn/jsmn.h: a bare value is any run of printable bytes up to , } ] or whitespace; src/flb_pack.c
  // tokens_to_msgpack(): one starting with t / f / n is true / false / null. The repair quotes a bare value starting
  // with `-` or a digit that is not a JSON number (R6); words are left: 4.0.13 reads `nope` as null, 4.2.8 and
  // JSON.parse refuse the line (its event is recorded in ingest_errors as unparsed).
  const line = `{"eventType":"io.serverlessworkflow.workflow.started.v1","instanceId":"${ID}","timestamp":1.7785772435E9,"workflowVersion":1.0.0,"retries":nope}`;

  it('4.0.13 indexes the event with `nope` as null; `1.0.0` reaches it as the string the repair made', () => {
    const result = run([line]);
    expect(result.delivered.map((d) => d.tag)).toEqual(['workflow-index.workflow']);
    expect(result.delivered[0]?.record['retries']).toBeNull();
    expect(result.delivered[0]?.record['workflowVersion']).toBe('1.0.0');
  });

  it('4.2.8 does not parse it: the line goes to the raw table unparsed', () => {
    expect(run([line], '4.2.8').delivered.map((d) => d.tag)).toEqual(['workflow-index.unparsed']);
  });

  it('4.0.13 accepts a raw TAB inside a string (4.2.8 does not parse the line)', () => {
    const tab = `{"eventType":"io.serverlessworkflow.workflow.started.v1","instanceId":"${ID}","timestamp":1.7785772435E9,"workflowName":"a\tb"}`;
    const result = run([tab]);
    expect(result.delivered.map((d) => [d.tag, d.record['workflowName']])).toEqual([['workflow-index.workflow', 'a\tb']]);
    expect(run([tab], '4.2.8').delivered.map((d) => d.tag)).toEqual(['workflow-index.unparsed']);
  });
});

describe('tail Buffer_Max_Size / Skip_Long_Lines', () => {
  // plugins/in_tail/tail_file.c: a physical line that does not fit in Buffer_Max_Size (256k here: 256,000 bytes,
  // decimal units, made 256,001 by tail_config.c) is discarded with Skip_Long_Lines On (one warning per file). Physical
  // CRI lines are 16 KiB only with containerd's default max_container_log_line_size; a node with -1 (no split) or a
  // larger value hands Fluent Bit whole lines.
  const prefix = `${criTimestamp(1_778_577_243_512_700)} stdout F `.length;
  const event = (blobBytes: number): string => {
    const head = `{"eventType":"io.serverlessworkflow.workflow.started.v1","instanceId":"${ID}","timestamp":1.7785772435E9,"input":{"blob":"`;
    return `${head}${'z'.repeat(blobBytes - head.length - 3 - prefix)}"}}`;
  };

  it('reads a physical line of 255,999 bytes and skips one of 256,000: the event is lost, reported only as skipped', () => {
    expect(longestReadableLine('256k')).toBe(255_999);
    expect(run([event(255_999)]).delivered.map((d) => d.tag)).toEqual(['workflow-index.workflow']);
    const result = run([event(256_000), event(1000)]);
    expect(result.delivered.map((d) => d.sourceLines)).toEqual([[2]]);
    expect(result.dropped.map((d) => [d.stage, d.sourceLines])).toEqual([['input skip_long_lines', [1]]]);
  });
});
