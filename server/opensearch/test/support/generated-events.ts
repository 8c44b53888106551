// A generated event set for the cross-backend comparison: instances whose names, namespaces and versions collide,
// differ only in case or in characters beyond U+FFFF, contain wildcard and LIKE syntax, or are missing; several
// statuses and errors; placeholders (task events without workflow.started); payloads with numbers, booleans,
// numeric-looking strings and arrays. Times are ISO text with microseconds, many of them shared. Seeded: every run and
// both backends see the same lines.
import fc from 'fast-check';

const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';

const NAMES = ['order', 'Order', 'order-intake', 'ordér', 'order😀', 'order😀x', 'o*r?d', 'o%r_d', 'a\\b', 'z', ''];
const NAMESPACES = ['com.acme', 'com.ACME', 'com.acme.orders', 'ns%_', 'ns*?', 'ñs', '𝔘nicode'];
const VERSIONS = ['1.0.0', '1.0.1', '2.0', '10.0'];
const TASK_NAMES = ['validate', 'Validate', 'charge', 'ship😀', 'x*y', 'x%y'];
const JSON_VALUES = [0, 1, 1000, 1000.5, -3, true, false, null, '1000', 'true', 'a%b', 'a*b', 'ünï', 'x😀', [1, 2], { n: 1 }];

const time = (base: number, offsetUs: number): string => {
  const us = base + offsetUs;
  const ms = Math.floor(us / 1000);
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0')}Z`;
};
const BASE_US = Date.UTC(2026, 4, 12, 9, 0, 0) * 1000;

const payload = fc.option(
  fc.dictionary(fc.constantFrom('a', 'b', 'amount', 'flag', 'list', 'nested'), fc.constantFrom(...JSON_VALUES), { maxKeys: 4 }),
  { nil: undefined },
);

const instance = fc.record({
  placeholder: fc.nat({ max: 9 }).map((n) => n === 0),
  name: fc.constantFrom(...NAMES),
  namespace: fc.option(fc.constantFrom(...NAMESPACES), { nil: undefined }),
  version: fc.option(fc.constantFrom(...VERSIONS), { nil: undefined }),
  start: fc.integer({ min: 0, max: 40 }).map((n) => n * 250_000 + (n % 3)),
  end: fc.constantFrom('COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED', 'RUNNING', 'WAITING'),
  duration: fc.integer({ min: 1, max: 5_000_000 }),
  input: payload,
  output: payload,
  errorStatus: fc.option(fc.constantFrom(400, 404, 500), { nil: undefined }),
  errorTitle: fc.option(fc.constantFrom('Bad', 'bad', 'Timeout 😀', 'x%y'), { nil: undefined }),
  tasks: fc.array(
    fc.record({ name: fc.constantFrom(...TASK_NAMES), at: fc.integer({ min: 0, max: 20 }), done: fc.constantFrom('completed', 'faulted', 'none'), input: payload }),
    { maxLength: 3 },
  ),
});

/** Event lines of `count` generated instances (ids `gen-000`…), from a fixed seed. */
export function generatedEventLines(count: number, seed: number): string[] {
  const instances = fc.sample(instance, { numRuns: count, seed });
  const lines: string[] = [];
  instances.forEach((x, i) => {
    const id = `gen-${String(i).padStart(3, '0')}`;
    const start = time(BASE_US, x.start);
    const end = time(BASE_US, x.start + x.duration);
    if (!x.placeholder) {
      lines.push(JSON.stringify({
        instanceId: id, eventType: `${WF}started.v1`, timestamp: start, startTime: start, workflowName: x.name,
        ...(x.namespace === undefined ? {} : { workflowNamespace: x.namespace }), ...(x.version === undefined ? {} : { workflowVersion: x.version }),
        status: 'RUNNING', ...(x.input === undefined ? {} : { input: x.input }),
      }));
    }
    if (x.end === 'COMPLETED') lines.push(JSON.stringify({ instanceId: id, eventType: `${WF}completed.v1`, timestamp: end, endTime: end, status: 'COMPLETED', ...(x.output === undefined ? {} : { output: x.output }) }));
    else if (x.end === 'FAULTED') {
      lines.push(JSON.stringify({
        instanceId: id, eventType: `${WF}faulted.v1`, timestamp: end, endTime: end, status: 'FAULTED',
        error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', ...(x.errorTitle === undefined ? {} : { title: x.errorTitle }), ...(x.errorStatus === undefined ? {} : { status: x.errorStatus }), detail: `detail of ${id}` },
      }));
    } else if (x.end === 'CANCELLED') lines.push(JSON.stringify({ instanceId: id, eventType: `${WF}cancelled.v1`, timestamp: end, endTime: end, status: 'CANCELLED' }));
    else lines.push(JSON.stringify({ instanceId: id, eventType: `${WF}status-changed.v1`, timestamp: end, status: x.end, lastUpdateTime: end }));
    x.tasks.forEach((t, k) => {
      const position = `do/${k}/${t.name}`;
      const at = time(BASE_US, x.start + 1 + t.at * 1000);
      lines.push(JSON.stringify({ instanceId: id, eventType: `${TASK}started.v1`, timestamp: at, startTime: at, taskPosition: position, taskName: t.name, status: 'RUNNING', ...(t.input === undefined ? {} : { input: t.input }) }));
      const after = time(BASE_US, x.start + 2 + t.at * 1000 + k);
      if (t.done === 'completed') lines.push(JSON.stringify({ instanceId: id, eventType: `${TASK}completed.v1`, timestamp: after, endTime: after, taskPosition: position, taskName: t.name, status: 'COMPLETED', output: { k } }));
      if (t.done === 'faulted') lines.push(JSON.stringify({ instanceId: id, eventType: `${TASK}faulted.v1`, timestamp: after, endTime: after, taskPosition: position, taskName: t.name, status: 'FAILED', error: { title: 'task failed', status: 500 } }));
    });
  });
  return lines;
}
