// Producer lines no JSON parser reads, each with the reason its ingest error must give (json-text-fault.ts), and
// the good events printed around them. Positions count characters of the text the record holds: the line itself
// in Fluent Bit's unparsed record (`log`), the record with its time key in front when a forwarder without a parser
// puts the line into PostgreSQL's statement as it is.

export const GOOD_INSTANCE = '01KRDQDZBR7492YQWM736PEENJ';

const WF = 'io.serverlessworkflow.workflow';
const TASK = 'io.serverlessworkflow.task';

const wf = (kind: string, extra: string, ts: string): string =>
  `{"eventType":"${WF}.${kind}.v1","instanceId":"${GOOD_INSTANCE}","workflowNamespace":"com.acme","workflowName":"order","workflowVersion":"1.0.0","timestamp":${ts}${extra}}`;
const task = (kind: string, extra: string, ts: string): string =>
  `{"eventType":"${TASK}.${kind}.v1","instanceId":"${GOOD_INSTANCE}","taskName":"validate","taskPosition":"do/0/validate","timestamp":${ts}${extra}}`;

/** One run, started → task started/completed → completed: what must be served whatever lines surround it. */
export const GOOD_LINES: readonly string[] = [
  wf('started', ',"input":{"orderId":"A-1","qty":2}', '1.778577243512337E9'),
  task('started', ',"input":{"orderId":"A-1"}', '1.778577243512400E9'),
  task('completed', ',"output":{"ok":true}', '1.778577243512500E9'),
  wf('completed', ',"output":{"ok":true}', '1.778577243512600E9'),
];

const status = (id: string, extra: string): string =>
  `{"eventType":"${WF}.status-changed.v1","instanceId":"${id}","timestamp":1778577243.6,"status":"RUNNING"${extra}}`;

/** The record time a forwarder without a parser puts in front of each line (see rawRecordText). */
export const RAW_RECORD_TIME = '1778577243.6';

export interface UnparsableLine {
  readonly what: string;
  /** The printed line (one physical line: no raw newline). */
  readonly line: string;
  /** Its instance id when the line is an event some path reads after all (it is then accepted, not recorded). */
  readonly instanceId?: string;
  /** The reason of its ingest error through our Fluent Bit configuration, per version; `accepted` when it is read. */
  readonly viaFluentBit: { readonly '4.0.13': string; readonly '4.2.8': string };
  /** The reason when a forwarder without a parser puts the line into PostgreSQL's statement as it is. */
  readonly viaRawStatement?: string;
}

const notJson = (fault: string): string => `event is not valid JSON: ${fault}`;
const ENDS_EARLY = notJson('ends before the JSON text is complete');

export const UNPARSABLE_LINES: readonly UnparsableLine[] = [
  {
    what: 'a bare NaN',
    line: status('H-NAN', ',"x":NaN'),
    viaFluentBit: { '4.0.13': notJson('invalid token "NaN" at character 134'), '4.2.8': notJson('invalid token "NaN" at character 134') },
    viaRawStatement: notJson('invalid token "NaN" at character 164'),
  },
  {
    what: 'a bare inf',
    line: status('H-INF', ',"x":inf'),
    viaFluentBit: { '4.0.13': notJson('invalid token "inf" at character 134'), '4.2.8': notJson('invalid token "inf" at character 134') },
    viaRawStatement: notJson('invalid token "inf" at character 164'),
  },
  {
    // The line-repair rule's R6 makes it the string "-Infinity" on every path that repairs.
    what: 'a bare -Infinity',
    line: status('H-NINF', ',"x":-Infinity'),
    instanceId: 'H-NINF',
    viaFluentBit: { '4.0.13': 'accepted', '4.2.8': 'accepted' },
    viaRawStatement: notJson('invalid token "-Infinity" at character 165'),
  },
  {
    // Fluent Bit 4.0.13's tokenizer keeps raw control characters in strings (and prints them escaped).
    what: 'a raw U+0001 in a string',
    line: status('H-CTL', ',"x":"a\u0001b"'),
    instanceId: 'H-CTL',
    viaFluentBit: { '4.0.13': 'accepted', '4.2.8': notJson('control character U+0001 in a string at character 136') },
    viaRawStatement: notJson('control character U+0001 in a string at character 166'),
  },
  {
    what: 'a raw TAB in a string',
    line: status('H-TAB', ',"x":"a\tb"'),
    instanceId: 'H-TAB',
    viaFluentBit: { '4.0.13': 'accepted', '4.2.8': notJson('control character U+0009 in a string at character 136') },
    viaRawStatement: notJson('control character U+0009 in a string at character 166'),
  },
  {
    // The line-repair rule's R5 makes the deep array a string of its text; without it PostgreSQL's parser gives up.
    what: '20,000 levels of nesting',
    line: status('H-DEEP', `,"x":${'['.repeat(20_000)}${']'.repeat(20_000)}`),
    instanceId: 'H-DEEP',
    viaFluentBit: { '4.0.13': 'accepted', '4.2.8': 'accepted' },
    viaRawStatement: notJson('nested deeper than 1000 levels at character 1164'),
  },
  {
    // R5 needs the container's closing bracket: a cut deep line stays as it is.
    what: '20,000 levels of nesting, cut',
    line: status('H-DEEPCUT', `,"x":${'['.repeat(20_000)}`).slice(0, -1),
    viaFluentBit: { '4.0.13': notJson('nested deeper than 1000 levels at character 1137'), '4.2.8': notJson('nested deeper than 1000 levels at character 1137') },
  },
  {
    // A raw newline in a string ends the physical line there: its second half names no eventType and is dropped.
    what: 'an event cut by a raw newline in a string',
    line: `{"eventType":"${WF}.status-changed.v1","instanceId":"H-NL","timestamp":1778577243.6,"status":"RUNNING","x":"a`,
    viaFluentBit: { '4.0.13': ENDS_EARLY, '4.2.8': ENDS_EARLY },
  },
  {
    what: 'a truncated event',
    line: `{"eventType":"${WF}.started.v1","instanceId":"H-CUT","timestamp":1778577243.6,"workflowName":"order","input":{"orderId":"A-2"`,
    viaFluentBit: { '4.0.13': ENDS_EARLY, '4.2.8': ENDS_EARLY },
  },
  {
    what: 'plain text before the event (a log handler\'s pattern)',
    line: `2026-05-12 09:14:03,512 INFO  [io.qua.flo] ${status('H-PREFIX', '')}`,
    viaFluentBit: { '4.0.13': notJson('invalid token "2026-05-12" at character 1'), '4.2.8': notJson('invalid token "2026-05-12" at character 1') },
  },
  {
    // JSON, but no record: Fluent Bit takes only objects. The reason a record that is an array has always had.
    what: 'an array naming an eventType',
    line: `["eventType","${WF}.started.v1"]`,
    viaFluentBit: { '4.0.13': 'event is not a JSON object (got array)', '4.2.8': 'event is not a JSON object (got array)' },
  },
];
