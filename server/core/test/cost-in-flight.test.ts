// GRAPHQL_MAX_COST_IN_FLIGHT: the server-wide budget of rows in flight (cost-budget.ts). Requests hold their
// priced cost from before execution until their response is written; admission is FIFO; a wait beyond
// GRAPHQL_COST_QUEUE_TIMEOUT_MS is a 503; errors and client aborts give every row back.
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { App } from '../src/app.js';
import { CostBudget, CostQueueTimeout } from '../src/cost-budget.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import type { SimpleInstanceFilter, SimpleInstanceSortField, ListQuery, Reader, WorkflowInstanceRecord } from '../src/reader.js';
import { BackendUnavailableError } from '../src/reader.js';
import { MemoryLog, get, testConfig } from '@workflow-index/testkit';
import type { GraphQLResponseBody } from '@workflow-index/testkit';
import { INSTANCE_A, RecordingReader } from '@workflow-index/testkit';

/** Lets pending promise callbacks and I/O run (a turn of the event loop). */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Waits until `check` holds, a turn at a time (event ordering, no time bound but the test's own timeout). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 2));
}

type Outcome = 'ok' | 'error' | 'unavailable';

/**
 * A reader whose list reads wait for the test: a request is named by a number (its filter `name: {eq: "request-N"}`:
 * a filter costs nothing, where an offset would), its read waits until finish(N, outcome); `entered` lists the
 * numbers whose read started, in order. A request that runs compiled and fails reads once more on graphql-js
 * (compiled-execution.ts): that read ends at once, as the first one did.
 */
class GatedListReader extends RecordingReader {
  readonly entered: number[] = [];
  private readonly gates = new Map<number, (outcome: Outcome) => void>();
  private readonly outcomes = new Map<number, Outcome>();

  constructor() {
    super({ instances: Array.from({ length: 100 }, (_, i): WorkflowInstanceRecord => ({ ...INSTANCE_A, id: `i${i}` })) });
  }

  override async listInstances(query: ListQuery<SimpleInstanceFilter, SimpleInstanceSortField>): Promise<WorkflowInstanceRecord[]> {
    const filter = query.filter;
    const name = filter?.kind === 'string' && filter.predicate.op === 'eq' ? Number(String(filter.predicate.value).replace('request-', '')) : Number.NaN;
    if (Number.isNaN(name)) throw new Error(`not a gated request: ${JSON.stringify(filter)}`);
    let outcome = this.outcomes.get(name);
    if (outcome === undefined) {
      this.entered.push(name);
      outcome = await new Promise<Outcome>((resolve) => this.gates.set(name, resolve));
      this.gates.delete(name);
      this.outcomes.set(name, outcome);
    }
    if (outcome === 'error') throw new Error(`read ${name} failed`);
    if (outcome === 'unavailable') throw new BackendUnavailableError('backend down');
    return super.listInstances({ ...query, filter: null });
  }

  /** Ends the read of request `name` once it has started. */
  async finish(name: number, outcome: Outcome = 'ok'): Promise<void> {
    await until(() => this.gates.has(name));
    this.gates.get(name)?.(outcome);
  }

  isReading(name: number): boolean {
    return this.gates.has(name);
  }
}

/** Budget: requests of at most 100 rows, 250 rows in flight (two heavy requests and a few cheap ones). */
const ENV = { GRAPHQL_DEFAULT_LIMIT: '10', GRAPHQL_MAX_LIMIT: '100', GRAPHQL_MAX_COST: '100', GRAPHQL_MAX_COST_IN_FLIGHT: '250' };

/** A request of `rows` rows named by `name`. */
const listQuery = (name: number, rows = 100): string => `{ getWorkflowInstances(limit: ${rows}, filter: {name: {eq: "request-${name}"}}) { id } }`;
/** Costs 1 row and does not touch the gated list reads. */
const CHEAP = '{ getWorkflowInstance(id: "i1") { id } }';

function makeApp(env: Record<string, string> = {}): { app: App; reader: GatedListReader; log: MemoryLog } {
  const log = new MemoryLog();
  const reader = new GatedListReader();
  const app = createApp({ config: testConfig({ ...ENV, ...env }), reader: reader as Reader, logger: log.logger(), backend: 'test' });
  return { app, reader, log };
}

function post(app: App, query: string, signal?: AbortSignal): Promise<Response> {
  return app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }), ...(signal === undefined ? {} : { signal }) }));
}

interface Budget {
  inFlight: number;
  waiting: number;
  capacity: number;
  waitingRequests: number;
}

/** The budget as /q/metrics exports it. */
async function budgetOf(app: App): Promise<Budget> {
  const text = await (await get(app, '/q/metrics')).text();
  const value = (pattern: RegExp): number => Number(pattern.exec(text)?.[1] ?? Number.NaN);
  return {
    inFlight: value(/^workflow_index_cost_rows\{state="in_flight"[^}]*\} (\d+)$/m),
    waiting: value(/^workflow_index_cost_rows\{state="waiting"[^}]*\} (\d+)$/m),
    capacity: value(/^workflow_index_cost_rows\{state="capacity"[^}]*\} (\d+)$/m),
    waitingRequests: value(/^workflow_index_cost_waiting_requests\{[^}]*\} (\d+)$/m),
  };
}

describe('CostBudget', () => {
  it('admits cheapest first: a cheap request that fits passes heavier waiters, one that costs no less waits behind them', async () => {
    const budget = new CostBudget(10, 60_000);
    const admitted: string[] = [];
    expect(budget.tryAcquire(6)).toBe(true);
    const big = budget.wait(6).then(() => admitted.push('big'));
    // 1 row fits (6 + 1 ≤ 10) and is cheaper than the waiter: it passes at once.
    expect(budget.tryAcquire(1)).toBe(true);
    // 3 rows fit too (7 + 3 ≤ 10); the next 6 and 2 do not fit and wait, the 6 behind the older 6, the 2 before both.
    expect(budget.tryAcquire(3)).toBe(true);
    const equal = budget.wait(6).then(() => admitted.push('equal'));
    const small = budget.wait(2).then(() => admitted.push('small'));
    expect([budget.inFlight, budget.waiting, budget.waitingRows]).toEqual([10, 3, 14]);
    // 6 rows come back: the cheapest waiter (2) is admitted first; the older 6 does not fit beside it (4 + 2 + 6 > 10).
    budget.release(6);
    await small;
    expect(admitted).toEqual(['small']);
    budget.release(1);
    budget.release(3);
    await big;
    expect(admitted).toEqual(['small', 'big']);
    expect([budget.inFlight, budget.waiting]).toEqual([8, 1]);
    budget.release(2);
    budget.release(6);
    await equal;
    expect(admitted).toEqual(['small', 'big', 'equal']);
    budget.release(6);
    expect([budget.inFlight, budget.waiting, budget.waitingRows]).toEqual([0, 0, 0]);
  });

  it('capacity 0 admits everything and holds nothing', () => {
    const budget = new CostBudget(0, 1);
    expect(budget.tryAcquire(1_000_000)).toBe(true);
    budget.release(1_000_000);
    expect(budget.inFlight).toBe(0);
  });

  it('a waiter that times out or aborts leaves the queue, and the waiters behind it that fit are admitted', async () => {
    const budget = new CostBudget(10, 20);
    expect(budget.tryAcquire(8)).toBe(true);
    const timedOut = budget.wait(10);
    const behind = budget.wait(2);
    await expect(timedOut).rejects.toBeInstanceOf(CostQueueTimeout);
    await behind;
    expect(budget.inFlight).toBe(10);
    const controller = new AbortController();
    const aborted = budget.wait(5, controller.signal);
    controller.abort(new Error('client gone'));
    await expect(aborted).rejects.toThrow('client gone');
    expect([budget.inFlight, budget.waiting, budget.waitingRows]).toEqual([10, 0, 0]);
    budget.release(8);
    budget.release(2);
    expect(budget.inFlight).toBe(0);
  });

  it('property: under any schedule of acquires, releases, aborts and timeouts, admission is cheapest first (oldest first among equals), never above capacity, and the budget returns to full', async () => {
    type Step = { kind: 'acquire'; cost: number; abortable: boolean } | { kind: 'release'; pick: number } | { kind: 'abort'; pick: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('acquire' as const), cost: fc.integer({ min: 0, max: 10 }), abortable: fc.boolean() }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('abort' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), fc.boolean(), async (steps, shortTimeout) => {
        const budget = new CostBudget(10, shortTimeout ? 1 : 60_000);
        const held: number[] = [];
        const admittedOrder: number[] = [];
        const controllers: AbortController[] = [];
        const pending: Promise<void>[] = [];
        let next = 0;
        // Waiting requests by arrival: cost, and whether they are still waiting.
        const waiting = new Map<number, number>();
        for (const s of steps) {
          if (s.kind === 'acquire') {
            // Requests that read no rows (cost 0) hold nothing and pass at once: they are outside the order.
            const id = s.cost === 0 ? -1 : next++;
            if (budget.tryAcquire(s.cost)) {
              // Passing at once: no waiter costs as little, and it fits.
              for (const cost of waiting.values()) expect(cost).toBeGreaterThan(s.cost);
              held.push(s.cost);
              admittedOrder.push(id);
            } else {
              const controller = new AbortController();
              if (s.abortable) controllers.push(controller);
              waiting.set(id, s.cost);
              pending.push(
                budget.wait(s.cost, controller.signal).then(
                  () => {
                    // Admitted from the queue: no waiter left behind is cheaper, nor as cheap and older.
                    waiting.delete(id);
                    for (const [other, cost] of waiting) expect(cost > s.cost || (cost === s.cost && other > id)).toBe(true);
                    held.push(s.cost);
                    admittedOrder.push(id);
                  },
                  () => void waiting.delete(id),
                ),
              );
            }
          } else if (s.kind === 'release' && held.length > 0) {
            budget.release(held.splice(s.pick % held.length, 1)[0] ?? 0);
          } else if (s.kind === 'abort' && controllers.length > 0) {
            controllers.splice(s.pick % controllers.length, 1)[0]?.abort(new Error('aborted'));
          }
          // Admissions are reported to the waiters' callbacks on a later microtask.
          await turn();
          expect(budget.inFlight).toBeLessThanOrEqual(10);
          expect(budget.inFlight).toBe(held.reduce((a, b) => a + b, 0));
        }
        // Drain: release whatever is held until every waiter is admitted or gone.
        for (const c of controllers) c.abort(new Error('aborted'));
        while (held.length > 0 || budget.waiting > 0) {
          budget.release(held.pop() ?? 0);
          await turn();
        }
        await Promise.all(pending);
        expect([budget.inFlight, budget.waiting, budget.waitingRows]).toEqual([0, 0, 0]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('GRAPHQL_MAX_COST_IN_FLIGHT in the app', () => {
  it('admits heavy requests only while their sum fits, and the metric shows rows in flight and waiting', async () => {
    const { app, reader } = makeApp();
    expect(await budgetOf(app)).toEqual({ inFlight: 0, waiting: 0, capacity: 250, waitingRequests: 0 });
    const answers = [post(app, listQuery(1)), post(app, listQuery(2)), post(app, listQuery(3))];
    await until(async () => (await budgetOf(app)).waitingRequests === 1);
    // Two of 100 rows run, the third (100 + 100 + 100 > 250) waits without reading.
    expect(reader.entered).toEqual([1, 2]);
    expect(await budgetOf(app)).toEqual({ inFlight: 200, waiting: 100, capacity: 250, waitingRequests: 1 });
    await reader.finish(1);
    await until(() => reader.entered.length === 3);
    expect(reader.entered).toEqual([1, 2, 3]);
    await reader.finish(2);
    await reader.finish(3);
    const bodies = await Promise.all(answers.map(async (a) => (await a).json() as Promise<GraphQLResponseBody>));
    for (const body of bodies) expect(body.errors).toBeUndefined();
    expect(await budgetOf(app)).toEqual({ inFlight: 0, waiting: 0, capacity: 250, waitingRequests: 0 });
  });

  it('a cheap request runs at once beside heavy ones, also while heavy ones wait', async () => {
    const { app, reader } = makeApp();
    const heavy = [post(app, listQuery(1)), post(app, listQuery(2))];
    await until(() => reader.entered.length === 2);
    // 200 of 250 rows in flight, nobody waiting: 1 row passes while both heavy reads are still running.
    const cheap = await post(app, CHEAP);
    expect(await cheap.json()).toEqual({ data: { getWorkflowInstance: { id: 'i1' } } });
    expect(reader.isReading(1) && reader.isReading(2)).toBe(true);
    // A third heavy request waits; a cheap one that fits still passes it at once.
    const third = post(app, listQuery(3));
    await until(async () => (await budgetOf(app)).waitingRequests === 1);
    const passing = await post(app, CHEAP);
    expect(await passing.json()).toEqual({ data: { getWorkflowInstance: { id: 'i1' } } });
    expect(reader.entered).toEqual([1, 2]);
    // Releasing one heavy request admits the waiter.
    await reader.finish(1);
    await until(() => reader.entered.length === 3);
    await reader.finish(2);
    await reader.finish(3);
    expect((await Promise.all([...heavy, third])).map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await budgetOf(app)).inFlight).toBe(0);
  });

  it('a wait beyond GRAPHQL_COST_QUEUE_TIMEOUT_MS answers 503 SERVICE_UNAVAILABLE with Retry-After, without reading', async () => {
    const { app, reader } = makeApp({ GRAPHQL_MAX_COST_IN_FLIGHT: '100', GRAPHQL_COST_QUEUE_TIMEOUT_MS: '30' });
    const first = post(app, listQuery(1));
    await until(() => reader.entered.length === 1);
    const refused = await post(app, listQuery(2));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const body = (await refused.json()) as GraphQLResponseBody;
    expect(body.errors?.[0]?.extensions).toEqual({ code: 'SERVICE_UNAVAILABLE' });
    expect(body.errors?.[0]?.message).toContain('GRAPHQL_COST_QUEUE_TIMEOUT_MS');
    expect(body.errors?.[0]?.message).toContain('GRAPHQL_MAX_COST_IN_FLIGHT');
    expect(reader.entered).toEqual([1]);
    await reader.finish(1);
    expect((await first).status).toBe(200);
    expect(await budgetOf(app)).toMatchObject({ inFlight: 0, waiting: 0, waitingRequests: 0 });
    // Good input still runs afterwards.
    const again = post(app, listQuery(4));
    await reader.finish(4);
    expect((await again).status).toBe(200);
  });

  it('a request over GRAPHQL_MAX_COST is still BAD_USER_INPUT and holds nothing; GRAPHQL_MAX_COST_IN_FLIGHT=0 bounds nothing', async () => {
    const { app } = makeApp();
    const response = await post(app, `{ a: getWorkflowInstances(limit: 100) { id } b: getWorkflowInstances(limit: 1) { id } }`);
    expect(((await response.json()) as GraphQLResponseBody).errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect((await budgetOf(app)).inFlight).toBe(0);

    const unbounded = makeApp({ GRAPHQL_MAX_COST_IN_FLIGHT: '0' });
    const answers = [1, 2, 3, 4].map((i) => post(unbounded.app, listQuery(i)));
    await until(() => unbounded.reader.entered.length === 4);
    expect(await budgetOf(unbounded.app)).toMatchObject({ inFlight: 0, capacity: 0 });
    for (const i of [1, 2, 3, 4]) await unbounded.reader.finish(i);
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it('property: any schedule of requests, read errors, backend failures and aborts (waiting or running) returns the budget to full', async () => {
    type Plan = { rows: number; outcome: Outcome; abort: 'none' | 'waiting' | 'running' };
    const plan: fc.Arbitrary<Plan> = fc.record({
      rows: fc.integer({ min: 1, max: 100 }),
      outcome: fc.constantFrom<Outcome>('ok', 'error', 'unavailable'),
      abort: fc.constantFrom('none' as const, 'waiting' as const, 'running' as const),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(plan, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), async (plans, order) => {
        // No queue timeout within the test: every request that is not aborted must run.
        const { app, reader } = makeApp({ GRAPHQL_COST_QUEUE_TIMEOUT_MS: '600000' });
        const controllers = plans.map(() => new AbortController());
        const answers = plans.map((p, i) => post(app, listQuery(i + 1, p.rows), controllers[i]?.signal).then(
          (r) => r.status,
          () => 0,
        ));
        // Aborts of waiting requests first (those not reading yet), then finish the reads in a random order.
        await turn();
        plans.forEach((p, i) => {
          if (p.abort === 'waiting' && !reader.entered.includes(i + 1)) controllers[i]?.abort(new Error('client gone'));
        });
        const remaining = plans.map((_, i) => i).filter((i) => !controllers[i]?.signal.aborted);
        for (let k = 0; remaining.length > 0; k++) {
          // Some waiting request reads once rows are released; pick among those reading now.
          await until(() => remaining.some((i) => reader.isReading(i + 1)));
          const reading = remaining.filter((i) => reader.isReading(i + 1));
          const i = reading[(order[k % order.length] ?? 0) % reading.length] ?? 0;
          const p = plans[i] as Plan;
          if (p.abort === 'running') controllers[i]?.abort(new Error('client gone'));
          await reader.finish(i + 1, p.outcome);
          remaining.splice(remaining.indexOf(i), 1);
        }
        const statuses = await Promise.all(answers);
        // Read failures are GraphQL errors (200); what an aborted client would have got does not matter.
        statuses.forEach((s, i) => {
          if (!(controllers[i]?.signal.aborted ?? false)) expect(s).toBe(200);
        });
        await until(async () => (await budgetOf(app)).inFlight === 0);
        expect(await budgetOf(app)).toEqual({ inFlight: 0, waiting: 0, capacity: 250, waitingRequests: 0 });
        await app.dispose();
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('on real sockets', () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.close()));
  });

  function send(port: number, query: string): { req: ClientRequest; answer: Promise<number> } {
    let req: ClientRequest | undefined;
    const answer = new Promise<number>((resolve) => {
      req = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      });
      req.on('error', () => resolve(0));
      req.end(JSON.stringify({ query }));
    });
    return { req: req as ClientRequest, answer };
  }

  it('clients that disconnect while their request runs or waits give back every row; the waiters behind them run', async () => {
    const log = new MemoryLog();
    const reader = new GatedListReader();
    const config = testConfig({ ...ENV, HTTP_HOST: '127.0.0.1', HTTP_PORT: '0' });
    const app = createApp({ config, reader: reader as Reader, logger: log.logger(), backend: 'test' });
    const server = await startHttpServer(app, config, log.logger());
    running.push(server);
    const port = server.httpPort;
    const running1 = send(port, listQuery(1));
    const running2 = send(port, listQuery(2));
    await until(() => reader.entered.length === 2);
    const waiting3 = send(port, listQuery(3));
    const waiting4 = send(port, listQuery(4));
    await until(async () => (await budgetOf(app)).waitingRequests === 2);
    // One running client and one waiting client hang up.
    running1.req.destroy();
    waiting3.req.destroy();
    expect(await running1.answer).toBe(0);
    expect(await waiting3.answer).toBe(0);
    await reader.finish(1);
    // Request 3 left the queue: request 4 is the one admitted.
    await reader.finish(4);
    await reader.finish(2);
    expect(await running2.answer).toBe(200);
    expect(await waiting4.answer).toBe(200);
    expect(reader.entered).not.toContain(3);
    await until(async () => (await budgetOf(app)).inFlight === 0);
    expect(await budgetOf(app)).toEqual({ inFlight: 0, waiting: 0, capacity: 250, waitingRequests: 0 });
  });
});
