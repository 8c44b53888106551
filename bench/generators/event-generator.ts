// A realistic, deterministic-shape event stream for benchmarks (random taskExecutionIds only).
import { randomBytes } from 'node:crypto';

export type Event = Record<string, unknown>;
const P = 'io.serverlessworkflow.';

/** A realistic stream: instances overlapping in time, 6 task positions (one a 3-iteration loop), 10% faulted. */
export function generateEventStream(instances: number, runTag: string): Event[] {
  const events: Array<{ t: number; seq: number; e: Event }> = [];
  let seq = 0;
  const push = (t: number, e: Event): void => {
    events.push({ t, seq: seq++, e });
  };
  const base = 1_778_577_243;
  for (let i = 0; i < instances; i++) {
    const id = `${runTag}${i.toString(36).padStart(8, '0')}`;
    let t = base + i * 0.01; // a new instance every 10 ms; each lasts ~50 ms, so ~5 overlap
    const input = { orderId: `ORD-${i}`, customer: { name: `Cliente ${i} — São Paulo`, tier: i % 3 === 0 ? 'gold' : 'std' }, items: [{ sku: `SKU-${i % 97}`, qty: (i % 5) + 1, price: 12.5 }] };
    push(t, { eventType: `${P}workflow.status-changed.v1`, instanceId: id, timestamp: t, status: 'RUNNING', lastUpdateTime: t });
    t += 0.000041;
    push(t, { eventType: `${P}workflow.started.v1`, instanceId: id, timestamp: t, startTime: t, status: 'RUNNING', workflowNamespace: 'com.acme.orders', workflowName: `flow-${i % 7}`, workflowVersion: '1.0.0', input });
    const faulted = i % 10 === 9;
    const positions = ['do/0/validate', 'do/1/reserve', 'do/2/items/do', 'do/2/items/do/0/pick', 'do/3/charge', 'do/4/notify'];
    for (const pos of positions) {
      const name = pos.split('/').at(-1) === 'do' ? 'items' : pos.split('/').at(-1);
      const iterations = pos.endsWith('/pick') ? 3 : 1;
      for (let k = 0; k < iterations; k++) {
        t += 0.0002;
        push(t, { eventType: `${P}task.started.v1`, instanceId: id, taskExecutionId: randomBytes(16).toString('hex'), taskName: name, taskPosition: pos, timestamp: t, startTime: t, status: 'RUNNING' });
        t += 0.003;
        if (faulted && pos === 'do/3/charge') {
          push(t, { eventType: `${P}task.faulted.v1`, instanceId: id, taskExecutionId: randomBytes(16).toString('hex'), taskName: name, taskPosition: pos, timestamp: t, endTime: t, status: 'FAILED', input, error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', status: 503, instance: pos, title: 'Service Unavailable', detail: '{"error":"psp_timeout"}' } });
        } else {
          push(t, { eventType: `${P}task.completed.v1`, instanceId: id, taskExecutionId: randomBytes(16).toString('hex'), taskName: name, taskPosition: pos, timestamp: t, endTime: t, status: 'COMPLETED' });
        }
      }
      if (faulted && pos === 'do/3/charge') break;
    }
    t += 0.0001;
    const status = faulted ? 'FAULTED' : 'COMPLETED';
    push(t, { eventType: `${P}workflow.status-changed.v1`, instanceId: id, timestamp: t, status, lastUpdateTime: t });
    t += 0.00003;
    push(t, faulted
      ? { eventType: `${P}workflow.faulted.v1`, instanceId: id, timestamp: t, endTime: t, status, input, error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', status: 503, instance: 'do/3/charge', title: 'Service Unavailable', detail: null } }
      : { eventType: `${P}workflow.completed.v1`, instanceId: id, timestamp: t, endTime: t, status, output: { ok: true, orderId: `ORD-${i}` } });
  }
  events.sort((a, b) => a.t - b.t || a.seq - b.seq);
  return events.map((x) => x.e);
}

