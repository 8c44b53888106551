// One test per behaviour of the real binary recorded in shared/reference/fluent-bit-observed.md (4.0.13 pinned,
// 4.2.8 checked), run through the model built from fluent-bit/postgresql. Each test names the observation it
// models; where the observation is a defect, the test shows the old configuration losing the data and ours not.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClassicConfig } from '../model/classic-config.js';
import { loadFluentBitConfig } from '../model/load-config.js';
import { type PodMetadata, createPipeline } from '../model/pipeline.js';
import { pgsqlChunkJson, flushStatements } from '../model/pgsql-output.js';
import { FLUENT_BIT_VERSIONS, packNumber, parseFluentJson } from '../model/flb-json-parser.js';
import { printFluentDouble, printFluentJson } from '../model/flb-json-printer.js';
import { FluentMap, toPlain } from '../model/fluent-value.js';
import { luaRepack } from '../model/lua-filter.js';
import { podLogPath, criLogFile, criTimestamp } from '@workflow-index/testkit';
import { deployedEnvironment } from './support/deployed-environment.js';

const { config, parsers, directory } = loadFluentBitConfig('postgresql');
const LOG_PATH = podLogPath('order-app-5d8f7c9b6-x2x7q', 'workflows', 'app');
const METADATA: PodMetadata = {
  podId: '3f0c6a2e-7d1b-4e55-9a43-0c1d2e3f4a5b', labels: { app: 'order-app' }, host: 'kind-worker', podIp: '10.244.1.7',
  containerHash: 'registry.example/acme/order-app@sha256:0f1e', containerImage: 'registry.example/acme/order-app:1.0.0',
};
const ID = '01KRDQDZBR7492YQWM736PEENJ';
const START = 'io.serverlessworkflow.workflow.started.v1';

function pipeline(version: (typeof FLUENT_BIT_VERSIONS)[number] = '4.0.13', configText?: string) {
  return createPipeline({
    config: configText === undefined ? config : parseClassicConfig(configText, 'fluent-bit/postgresql/fluent-bit.conf'),
    parsers, env: deployedEnvironment(), podMetadata: () => METADATA, now: () => 1_900_000_000, version,
  });
}

/** CRI file of raw lines (bytes kept as given), one printed line each. */
function cri(lines: readonly (string | Buffer)[], startMicros = 1_778_577_243_512_700): Buffer {
  return Buffer.concat(lines.map((line, i) => Buffer.concat([Buffer.from(`${criTimestamp(startMicros + i * 137)} stdout F `), Buffer.from(line), Buffer.from('\n')])));
}

describe('the statement the pgsql output sends (observed: "The statement it sends")', () => {
  const line = `{"eventType":"${START}","instanceId":"${ID}","timestamp":1.778577243512337E9,"input":{"name":"José","n":2.0,"big":12345678901234567890,"huge":123456789012345678901234,"p":0.30000000000000004,"path":"C:\\\\tmp"}}`;
  const result = pipeline().readLogFile(LOG_PATH, cri([line], 1_778_577_243_512_700));
  const [flush] = flushStatements(pipeline(), result.delivered);

  // Observed on the /var/log/containers layout, whose file name carries the container id (`docker_id`); the
  // /var/log/pods path our configuration tails has none, and the model appends none (not observed either way).
  it('puts the time key first as a %.16g double, then the event keys, then time, stream, _p and kubernetes', () => {
    const json = pgsqlChunkJson('wi_record_time', result.delivered);
    expect(json).toBe(`[{"wi_record_time":1778577243.5127,"eventType":"${START}","instanceId":"${ID}","timestamp":1778577243.512337,`
      + '"input":{"name":"Jos\\u00e9","n":2.0,"big":12345678901234567890,"huge":1.234567890123457e+23,"p":0.3,"path":"C:\\\\tmp"},'
      + '"time":"2026-05-12T09:14:03.512700000Z","stream":"stdout","_p":"F","kubernetes":{"pod_name":"order-app-5d8f7c9b6-x2x7q",'
      + '"namespace_name":"workflows","pod_id":"3f0c6a2e-7d1b-4e55-9a43-0c1d2e3f4a5b","labels":{"app":"order-app"},"host":"kind-worker",'
      + '"pod_ip":"10.244.1.7","container_name":"app",'
      + '"container_hash":"registry.example/acme/order-app@sha256:0f1e","container_image":"registry.example/acme/order-app:1.0.0"}}]');
  });

  it('sends one INSERT per chunk with the quoted table and an E literal with doubled backslashes', () => {
    expect(flush!.sql.startsWith(`INSERT INTO "workflow_events_raw" SELECT 'workflow-index.workflow', to_timestamp(CAST(value->>'wi_record_time' as FLOAT)), * FROM json_array_elements( E'[{"wi_record_time":1778577243.5127,`)).toBe(true);
    expect(flush!.sql).toContain('"name":"Jos\\\\u00e9"');
    expect(flush!.sql).toContain('"path":"C:\\\\\\\\tmp"');
    expect(flush!.sql.endsWith(`}}]');`)).toBe(true);
  });

  it('re-prints numbers: doubles with %.16g (a 17-digit double loses a digit), integral doubles as x.0, int64/uint64 exactly, larger integers as doubles', () => {
    expect([1.778577243512337e9, 2, 0.30000000000000004, 1e20, 1e-5, -0, Infinity].map(printFluentDouble))
      .toEqual(['1778577243.512337', '2.0', '0.3', '1e+20', '1e-05', '-0.0', 'inf']);
    expect(FLUENT_BIT_VERSIONS.map((v) => [packNumber('12345678901234567890', v), packNumber('-9223372036854775808', v), packNumber('18446744073709551616', v)]))
      .toEqual([[12345678901234567890n, -9223372036854775808n, 18446744073709551616], [12345678901234567890n, -9223372036854775808n, 18446744073709551616]]);
  });
});

describe('observed defect 1: the record time goes through a double', () => {
  it('prints …03.512700445Z as 1778577243.512701 (to_timestamp then stores .512701): the record time cannot identify an event', () => {
    const result = pipeline().readLogFile(LOG_PATH, Buffer.from(`2026-05-12T09:14:03.512700445Z stdout F {"eventType":"${START}","instanceId":"${ID}"}\n`));
    expect(printFluentDouble(result.delivered[0]!.time)).toBe('1778577243.512701');
  });
});

describe('observed defect 2: numbers a double cannot hold', () => {
  const numbers = ['1.0e999', '1e+999', '1e999', '2e308'];

  it('4.0.13 reads 1.0e999 and 1e+999 as inf but 1e999 and 2e308 as the integers 1 and 2; 4.2.8 fails the whole line', () => {
    expect(numbers.map((n) => packNumber(n, '4.0.13'))).toEqual([Infinity, Infinity, 1n, 2n]);
    for (const n of numbers) {
      const text = Buffer.from(`{"eventType":"${START}","output":{"v":${n}}}`);
      expect(parseFluentJson(text, '4.2.8'), n).toBeUndefined();
      expect(toPlain(parseFluentJson(text, '4.0.13')!.get('output')!), n).toEqual({ v: n.includes('.') || n.includes('+') ? Infinity : Number(n[0]) });
    }
  });

  it.each(FLUENT_BIT_VERSIONS)('with repair-line.lua before the parser (%s) each literal reaches PostgreSQL as a string of its exact text, the event is kept', (version) => {
    const line = `{"eventType":"${START}","instanceId":"${ID}","output":{"a":1.0e999,"b":1e+999,"c":1e999,"d":2e308,"e":-1e999,"f":1e-400,"g":1.5}}`;
    const result = pipeline(version).readLogFile(LOG_PATH, cri([line]));
    expect(result.delivered.map((d) => d.record['output'])).toEqual([{ a: '1.0e999', b: '1e+999', c: '1e999', d: '2e308', e: '-1e999', f: '1e-400', g: 1.5 }]);
    expect(pgsqlChunkJson('wi_record_time', result.delivered)).toContain('"output":{"a":"1.0e999","b":"1e+999","c":"1e999","d":"2e308","e":"-1e999","f":"1e-400","g":1.5}');
  });
});

describe('observed defect 3: a line split at 16 KiB across the multiline flush tick', () => {
  const large = `{"input":{"notes":"${'x'.repeat(20_000)}"},"eventType":"${START}","instanceId":"${ID}","timestamp":1.778577243512337E9}`;
  const file = criLogFile([{ stream: 'stdout', text: large }]);
  // The F part is written 6 s after the P part: deterministic loss in the observation.
  const arrival = (line: number): number => (line === 1 ? 0.5 : 6.5);
  const oldConfig = readFileSync(join(directory, 'fluent-bit.conf'), 'utf8')
    .replace(/ {4}Parser {12}cri_line\n/, '    multiline.parser  cri\n')
    .replace(/\[FILTER\]\n {4}Name {4}lua\n {4}Alias {3}join_split_lines\n(?: {4}.*\n)+\n/, '')
    // The previous eventType filter: one rule, so an unparsable half is dropped without a trace.
    .replace(/ {4}Logical_Op {2}or\n/, '').replace(/ {4}Regex {7}\$log "eventType"\n {4}Regex {7}\$wi_join_truncated \.\n {4}Regex {7}\$wi_join_orphan \.\n/, '');

  it('with the built-in `multiline.parser cri` (and the previous eventType filter) the halves are flushed apart by the 4 s tick and both dropped', () => {
    expect(oldConfig).not.toContain('Alias   join_split_lines');
    expect(oldConfig).not.toContain('$log "eventType"');
    expect(file.lines.map((l) => l.partial)).toEqual([true, false]);
    const result = pipeline('4.0.13', oldConfig).readLogFile(LOG_PATH, file.content, { arrival });
    expect(result.delivered).toEqual([]);
    expect(result.dropped.map((d) => [d.stage, d.sourceLines])).toEqual([['filter keep_lifecycle_events', [1]], ['filter keep_lifecycle_events', [2]]]);
    // Parts 100 ms apart on either side of a tick are cut too (seen once in 7 runs: whenever the tick falls between).
    expect(pipeline('4.0.13', oldConfig).readLogFile(LOG_PATH, file.content, { arrival: (l) => (l === 1 ? 3.95 : 4.05) }).delivered).toEqual([]);
  });

  it('our eventType filter would at least record the half that names the eventType (routed as unparsed, an ingest error)', () => {
    const withoutJoin = readFileSync(join(directory, 'fluent-bit.conf'), 'utf8')
      .replace(/ {4}Parser {12}cri_line\n/, '    multiline.parser  cri\n')
      .replace(/\[FILTER\]\n {4}Name {4}lua\n {4}Alias {3}join_split_lines\n(?: {4}.*\n)+\n/, '');
    const result = pipeline('4.0.13', withoutJoin).readLogFile(LOG_PATH, file.content, { arrival });
    expect(result.delivered.map((d) => [d.tag, d.sourceLines])).toEqual([['workflow-index.unparsed', [2]]]);
    expect(result.dropped.map((d) => [d.stage, d.sourceLines])).toEqual([['filter keep_lifecycle_events', [1]]]);
  });

  it('with join-partial-lines.lua (no timer) the event is joined and delivered, however long the pause', () => {
    for (const pause of [0.1, 6, 3600]) {
      const result = pipeline().readLogFile(LOG_PATH, file.content, { arrival: (l) => (l === 1 ? 0.5 : 0.5 + pause) });
      expect(result.delivered.map((d) => [d.output, d.sourceLines, (d.record['input'] as { notes: string }).notes.length])).toEqual([['workflow_events', [1, 2], 20_000]]);
    }
  });
});

describe('observed defect 4: an app field named like the time key', () => {
  it('an event with its own `date` keeps it as a plain field: the time key is wi_record_time, printed first, which no producer prints', () => {
    const result = pipeline().readLogFile(LOG_PATH, cri([`{"eventType":"${START}","instanceId":"${ID}","date":"yesterday"}`]));
    const json = pgsqlChunkJson('wi_record_time', result.delivered);
    expect(json.startsWith('[{"wi_record_time":1778577243.5127,"eventType"')).toBe(true);
    expect(json).toContain('"date":"yesterday"');
  });
});

describe('observed defect 6: the Lua filter re-packs a record it modifies', () => {
  it('return 1/2 drops null-valued keys, rounds integers above 2^53 and turns 1.0 into 1; return 0 keeps the record intact', () => {
    const record = new FluentMap([['a', null], ['b', 9007199254740993n], ['c', 1], ['d', 1.5], ['e', 'x'], ['f', [null, 2n]]]);
    const repacked = luaRepack(record) as FluentMap;
    expect(repacked.entries).toEqual([['b', 9007199254740992n], ['c', 1n], ['d', 1.5], ['e', 'x'], ['f', [null, 2n]]]);
  });

  it('our Lua filters run before the JSON parser, on records that only hold strings: nothing an event holds is re-packed', () => {
    const line = `{"eventType":"${START}","instanceId":"${ID}","input":{"none":null,"big":9007199254740993,"one":1.0,"nul":"a\\u0000b"}}`;
    const result = pipeline().readLogFile(LOG_PATH, cri([line]));
    // The NUL escape made repair-line.lua return 2 (a re-pack); the event's null, big integer and 1.0 are intact.
    expect(pgsqlChunkJson('wi_record_time', result.delivered)).toContain('"input":{"none":null,"big":9007199254740993,"one":1.0,"nul":"a\\ufffdb"}');
  });
});

describe('other differences from the previous model', () => {
  it('Reserve_Data: on a collision the runtime\'s time, stream and _p are kept and the event\'s own fields of those names dropped', () => {
    const line = `{"eventType":"${START}","instanceId":"${ID}","time":"event-time","stream":"event-stream","_p":"event-p","kept":1}`;
    const result = pipeline().readLogFile(LOG_PATH, cri([line]));
    const record = result.delivered[0]!.value;
    // filter_parser appends the runtime's keys after the parsed ones without deduplicating; the record accessor reads
    // the last entry of a repeated key and the JSON printer prints only that one, so the event's fields are gone
    // from every output (this test used to expect the model's record itself to hold each key once).
    expect(record.keys()).toEqual(['eventType', 'instanceId', 'time', 'stream', '_p', 'kept', 'time', 'stream', '_p', 'kubernetes']);
    expect([record.get('time'), record.get('stream'), record.get('_p')]).toEqual(['2026-05-12T09:14:03.512700000Z', 'stdout', 'F']);
    const printed = JSON.parse(printFluentJson(record)) as Record<string, unknown>;
    expect(Object.keys(printed)).toEqual(['eventType', 'instanceId', 'kept', 'time', 'stream', '_p', 'kubernetes']);
    expect([printed['time'], printed['stream'], printed['_p']]).toEqual(['2026-05-12T09:14:03.512700000Z', 'stdout', 'F']);
  });

  it('a 310 KiB event (19 P parts and an F) is joined and delivered whole: CRI physical lines never reach Buffer_Max_Size', () => {
    const text = `{"eventType":"${START}","instanceId":"${ID}","input":{"blob":"${'y'.repeat(310 * 1024)}"}}`;
    const file = criLogFile([{ stream: 'stdout', text }]);
    expect(file.lines.length).toBe(20);
    const result = pipeline().readLogFile(LOG_PATH, file.content);
    expect(result.delivered.map((d) => [d.sourceLines.length, (d.record['input'] as { blob: string }).blob.length])).toEqual([[20, 310 * 1024]]);
    expect(result.filterDrops['join_split_lines']).toBe(19);
  });

  it('rewrite_tag counts every re-tagged record as a drop: its counter equals the routed events, not losses', () => {
    const lines = [START, 'io.serverlessworkflow.task.started.v1', 'io.serverlessworkflow.lifecycle.ping.v1'].map((t) => `{"eventType":"${t}","instanceId":"${ID}"}`);
    const result = pipeline().readLogFile(LOG_PATH, cri(lines));
    expect(result.delivered.map((d) => d.tag)).toEqual(['workflow-index.workflow', 'workflow-index.task', 'workflow-index.unrecognized']);
    expect(result.dropped).toEqual([]);
    expect(result.filterDrops).toEqual({ route_by_event_kind: 3 });
  });

  it('a lone surrogate escape or invalid UTF-8 never fails the parser: replaced by U+FFFD (and repaired before it in our pipeline)', () => {
    for (const version of FLUENT_BIT_VERSIONS) {
      const parsed = parseFluentJson(Buffer.concat([Buffer.from('{"a":"\\ud800x","b":"'), Buffer.from([0xff, 0x41]), Buffer.from('","c":"\\ud83d\\ude00"}')]), version)!;
      expect(toPlain(parsed)).toEqual({ a: '\uFFFDx', b: '\uFFFDA', c: '😀' });
    }
    const line = Buffer.concat([Buffer.from(`{"eventType":"${START}","instanceId":"${ID}","input":{"s":"\\ud800","u":"`), Buffer.from([0xc3, 0x28]), Buffer.from('","e":"😀"}}')]);
    const result = pipeline().readLogFile(LOG_PATH, cri([line]));
    expect(pgsqlChunkJson('wi_record_time', result.delivered)).toContain('"input":{"s":"\\ufffd","u":"\\ufffd(","e":"\\ud83d\\ude00"}');
  });
});
