// What a Quarkus Flow application in the `workflows` namespace prints, as the end-to-end suites replay it:
// the reference event stream (fixtures/quarkus-flow-events.jsonl, byte for byte, epoch seconds in scientific
// notation) mixed with what else appears on a real pod's stdout and stderr — the Quarkus banner and log lines,
// JSON application logs without eventType, an event-like JSON of another producer, a stderr stack trace and
// the line Quarkus Flow prints when it cannot serialize an event. One event line is made longer than the
// container runtime's 16 KiB line limit (a large workflow input, as with a raised `payload-max-size`), with
// multi-byte characters so that the runtime's byte-wise split falls inside characters.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURE_FILE = fileURLToPath(new URL('../../fixtures/quarkus-flow-events.jsonl', import.meta.url));

export type LineKind = 'event' | 'banner' | 'app-log' | 'app-json' | 'foreign-event' | 'serialization-error' | 'stderr';

export interface AppLine {
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
  readonly kind: LineKind;
}

export type WorkflowEvent = Readonly<Record<string, unknown>> & { readonly eventType: string; readonly instanceId: string };

/** The instance whose workflow.started line is enlarged beyond 16 KiB. */
export const LARGE_EVENT_INSTANCE = '01KRDQEAPWDTERF1SDDX5A5SQV';

export function fixtureEventLines(): string[] {
  return readFileSync(FIXTURE_FILE, 'utf8').split('\n').filter((l) => l.trim() !== '');
}

/** A packing-notes list that makes the order-fulfilment input about 45 KiB, mostly multi-byte UTF-8. */
export function largePackingNotes(): string[] {
  return Array.from({ length: 600 }, (_, i) => `Fach ${String(i).padStart(3, '0')}: Größe prüfen — 東京倉庫 ✓ «fragile» ${'±'.repeat(i % 7)}`);
}

/** The same size in plain ASCII, for docker json-file logs (whose writer would mangle split characters). */
export function asciiPackingNotes(): string[] {
  return Array.from({ length: 600 }, (_, i) => `Bin ${String(i).padStart(3, '0')}: check size - Tokyo warehouse OK <fragile> ${'+'.repeat(i % 7)}`);
}

function enlarge(line: string, notes: readonly string[]): string {
  // Insert into the raw text so the rest of the line (key order, E-notation numbers) stays as emitted.
  const marker = ']},"instanceId"';
  if (!line.includes(marker)) throw new Error('fixture line changed: cannot enlarge the order-fulfilment input');
  // Pad the first note so that the runtime's first 16 KiB cut falls inside a multi-byte character (when the
  // notes have any): the joining must then work on bytes, not on decoded text.
  for (let pad = 0; pad < 4; pad++) {
    const padded = notes.map((n, i) => (i === 0 ? `${'.'.repeat(pad)}${n}` : n));
    const text = line.replace(marker, `],"packingNotes":${JSON.stringify(padded)}},"instanceId"`);
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length <= 16 * 1024 || (bytes[16 * 1024]! & 0xc0) === 0x80 || pad === 3) return text;
  }
  throw new Error('unreachable');
}

const BANNER: readonly string[] = [
  '__  ____  __  _____   ___  __ ____  ______ ',
  ' --/ __ \\/ / / / _ | / _ \\/ //_/ / / / __/ ',
  ' -/ /_/ / /_/ / __ |/ , _/ ,< / /_/ /\\ \\   ',
  '--\\___\\_\\____/_/ |_/_/|_/_/|_|\\____/___/   ',
  '2026-05-12 09:14:01,003 INFO  [io.quarkus] (main) order-app 1.0.0 on JVM (powered by Quarkus 3.34.5) started in 1.734s. Listening on: http://0.0.0.0:8080',
  '2026-05-12 09:14:01,004 INFO  [io.quarkus] (main) Installed features: [cdi, flow, rest, smallrye-health]',
];

const NOISE: readonly AppLine[] = [
  { stream: 'stdout', kind: 'app-log', text: '2026-05-12 09:14:03,498 INFO  [com.acm.ord.OrderResource] (executor-thread-1) accepted order ORD-7F3A-0042' },
  { stream: 'stdout', kind: 'app-json', text: '{"timestamp":"2026-05-12T09:14:05.101Z","level":"INFO","loggerName":"com.acme.orders.StockClient","message":"stock reserved","mdc":{"eventType":"io.serverlessworkflow.task.completed.v1"}}' },
  { stream: 'stderr', kind: 'stderr', text: 'Exception in thread "pool-3-thread-2" java.lang.IllegalStateException: connection reset by peer' },
  { stream: 'stdout', kind: 'foreign-event', text: '{"eventType":"com.acme.orders.order-created.v1","instanceId":"ORD-7F3A-0042","timestamp":1.778577243E9}' },
  { stream: 'stdout', kind: 'serialization-error', text: '{"error":"Failed to serialize event: (was java.lang.UnsupportedOperationException) (through reference chain: io.serverlessworkflow.impl.lifecycle.WorkflowStartedEvent[\\"workflowContext\\"])"}' },
  { stream: 'stdout', kind: 'app-log', text: '2026-05-12 09:14:11,020 WARN  [io.qua.flo.run.FlowRunner] (executor-thread-4) workflow 01KRDQE6KHQGTG2RA2Q0X3ED0J cancelled by request' },
  { stream: 'stdout', kind: 'app-json', text: '{"level":"DEBUG","message":"heartbeat","ts":1778577260}' },
  { stream: 'stderr', kind: 'stderr', text: '\tat io.vertx.core.net.impl.ConnectionBase.handleClosed(ConnectionBase.java:384)' },
];

/**
 * The application's output in print order: the banner, then every fixture event in file order with one
 * noise line after every 10th event. Every line is returned with its stream and what it is.
 */
export function workflowAppOutput(notes: readonly string[] = largePackingNotes()): AppLine[] {
  const lines: AppLine[] = BANNER.map((text) => ({ stream: 'stdout', kind: 'banner', text }));
  let noise = 0;
  fixtureEventLines().forEach((raw, index) => {
    const event = JSON.parse(raw) as WorkflowEvent;
    const large = event.instanceId === LARGE_EVENT_INSTANCE && event.eventType.endsWith('.workflow.started.v1');
    lines.push({ stream: 'stdout', kind: 'event', text: large ? enlarge(raw, notes) : raw });
    if ((index + 1) % 10 === 0) lines.push(NOISE[noise++ % NOISE.length]!);
  });
  return lines;
}

export function eventsOf(lines: readonly AppLine[]): WorkflowEvent[] {
  return lines.filter((l) => l.kind === 'event').map((l) => JSON.parse(l.text) as WorkflowEvent);
}
