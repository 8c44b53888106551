// Runs for the export tests: event lines of runs with the shapes an export has to carry exactly — start times that
// tie (the id breaks them), runs without a start of their own order (RUNNING, FAULTED with every error field,
// COMPLETED), several namespaces, no namespace, and names and payloads full of what CSV and spreadsheets mind
// (commas, quotes, CR/LF, leading = + - @, empty strings, non-ASCII).
import { randomInt, type Random } from '@workflow-index/testkit';

const WF = 'io.serverlessworkflow.workflow.';
export const EXPORT_NAMESPACES = ['org.acme.shop', 'org.acme.billing', 'org.other', null] as const;
const TRICKY = ['plain', 'a,b', 'say "hi"', 'line\nbreak', 'cr\r\nlf', '=SUM(A1:A9)', '+1', '-2', '@cmd', '', 'é ü 漢 😀', ' padded '];

const pick = <T>(random: Random, items: readonly T[]): T => items[randomInt(random, 0, items.length - 1)] as T;

/** `count` runs (ids `<tag>-<n>`), their events as lines. */
export function exportRunLines(random: Random, count: number, tag = 'exp'): string[] {
  const lines: string[] = [];
  const base = Date.UTC(2026, 4, 14, 8, 0, 0);
  for (let n = 0; n < count; n++) {
    const id = `${tag}-${String(n).padStart(4, '0')}-${pick(random, ['x', 'y', 'z'])}`;
    // Few distinct start times: many runs share one, so the order leans on the id.
    const startMs = base + randomInt(random, 0, Math.max(1, Math.floor(count / 4))) * 1000;
    const start = new Date(startMs).toISOString().replace('Z', `${String(randomInt(random, 0, 1) * 512).padStart(3, '0')}Z`);
    const namespace = pick(random, EXPORT_NAMESPACES);
    lines.push(JSON.stringify({
      instanceId: id, eventType: `${WF}started.v1`, timestamp: start, startTime: start, status: 'RUNNING',
      workflowName: `wf ${pick(random, TRICKY)}`, workflowVersion: pick(random, ['1.0', '2.0-rc,1', '=1']),
      ...(namespace === null ? {} : { workflowNamespace: namespace }),
      input: { text: pick(random, TRICKY), amount: randomInt(random, 0, 1000), nested: { list: [1, 'two', null] } },
    }));
    const end = new Date(startMs + randomInt(random, 1, 5000)).toISOString();
    const outcome = randomInt(random, 0, 2);
    if (outcome === 1) lines.push(JSON.stringify({ instanceId: id, eventType: `${WF}completed.v1`, timestamp: end, endTime: end, status: 'COMPLETED', output: { ok: true, note: pick(random, TRICKY) } }));
    if (outcome === 2) {
      lines.push(JSON.stringify({
        instanceId: id, eventType: `${WF}faulted.v1`, timestamp: end, endTime: end, status: 'FAULTED',
        error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', title: `failed ${pick(random, TRICKY)}`, status: 500 + randomInt(random, 0, 3), detail: pick(random, TRICKY), instance: 'do/0/call' },
      }));
    }
  }
  return lines;
}
