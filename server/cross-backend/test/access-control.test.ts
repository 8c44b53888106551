// Access control (CONTRACT §8) on both real backends, as a property: no answer tells a subject more than its rules
// grant. The conformance events and runs of our own in many namespaces (org.acme.*, look-alikes in case, prefix and
// LIKE syntax, runs without a namespace) go into PostgreSQL and OpenSearch; each backend's production app runs in
// process with AUTH_MODE=oidc against a real test OpenID provider (one client per subject, its groups in its access
// token) and a rules file written for each generated rule set. For random rule sets (groups → exact, prefix, infix and
// `*` patterns, patterns that match nothing or only look like they do, payloads on or off), random subjects (any subset
// of the groups) and random requests from the cross-backend generators (every list with filters, filters by tasks,
// orders, limits, offsets and cursors; runs and tasks by id, hidden ids included; a run's tasks; a task's run; every
// count), each answer — sent three times: graphql-js, compiled, hot — must be the admin's answer (rule `*` with
// payloads) narrowed by the subject's rules, computed here from the rules alone: runs outside its namespaces absent
// (whole result sets compared, pages re-cut), counts of the narrowed set, the payload fields null where no matching
// rule grants payloads, a payload filter refused FORBIDDEN when the subject does not see every payload it could
// match, no error text naming a hidden run, and indexStatus FORBIDDEN without a `*` rule.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type App, createApp, loadCoreConfig, type Reader } from '@workflow-index/core';
import { CONFORMANCE_EVENTS, GraphQLClient, type GraphQLResult, startTestIssuer, type TestIssuer, type Variables } from '@workflow-index/testkit';
import { createTestNamespace, eventLines, type TestNamespace } from '@workflow-index/opensearch/testing';
import { describeBoth } from './support/fixtures.js';
import { loadPair, type Pair } from './support/backend-pair.js';
import { INSTANCE_ORDER_FIELDS, TASK_ORDER_FIELDS, instanceFilter, orderBy, taskFilter, valuePools } from './support/generated-queries.js';
import { LOOKUP_INSTANCE_ORDER_FIELDS, LOOKUP_TASK_ORDER_FIELDS, lookupInstanceFilter, lookupTaskFilter } from './support/generated-lookup-queries.js';

type Json = unknown;
type Row = Record<string, Json>;
type Filter = Record<string, Json>;

// ---------------------------------------------------------------------------------------------------------------
// The data: the conformance events, and runs of our own in namespaces that exact, prefix and infix patterns tell apart.

const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';
/** tag → namespace (null: the run is emitted without one). */
const OWN_NAMESPACES: readonly (readonly [string, string | null])[] = [
  ['shop', 'org.acme.shop'],
  ['billing', 'org.acme.billing'],
  ['acme', 'org.acme'],
  ['acmeshop', 'org.acmeshop'],
  ['shop-eu', 'org.acme.shop.eu'],
  ['other', 'org.other'],
  ['case', 'Org.Acme.shop'],
  ['like', 'org_acme%shop'],
  ['conf', 'com.acme.conformance'],
  ['none', null],
];

function ownLines(): string[] {
  const lines: string[] = [];
  const at = (n: number): string => new Date(Date.UTC(2026, 4, 14, 9, 0, 0) + n * 1000).toISOString().replace('Z', '123Z');
  let clock = 0;
  OWN_NAMESPACES.forEach(([tag, namespace], n) => {
    for (let k = 0; k < 3; k++) {
      const id = `acl-${tag}-${k}`;
      const start = at(clock++);
      lines.push(JSON.stringify({
        instanceId: id, eventType: `${WF}started.v1`, timestamp: start, startTime: start, status: 'RUNNING',
        workflowName: k === 2 ? 'acl-shared' : `acl-name-${tag}-${k}`, workflowVersion: `1.${k}`,
        ...(namespace === null ? {} : { workflowNamespace: namespace }),
        input: { order: `${tag}-${k}`, amount: 100 * (n + 1) + k, secret: `in-${id}` },
      }));
      const end = at(clock++);
      if (k === 0) lines.push(JSON.stringify({ instanceId: id, eventType: `${WF}completed.v1`, timestamp: end, endTime: end, status: 'COMPLETED', output: { ok: true, secret: `out-${id}` } }));
      if (k === 1) {
        lines.push(JSON.stringify({
          instanceId: id, eventType: `${WF}faulted.v1`, timestamp: end, endTime: end, status: 'FAULTED',
          error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', title: `failed ${tag}`, status: 500 + n, detail: `run detail of ${id}` },
        }));
      }
      const position = (i: number, name: string) => `do/${i}/${name}`;
      const t0 = at(clock++);
      const t1 = at(clock++);
      lines.push(JSON.stringify({ instanceId: id, eventType: `${TASK}started.v1`, timestamp: t0, startTime: t0, taskPosition: position(0, 'validate'), taskName: 'validate', status: 'RUNNING', input: { check: `${tag}-${k}` } }));
      lines.push(JSON.stringify({ instanceId: id, eventType: `${TASK}completed.v1`, timestamp: t1, endTime: t1, taskPosition: position(0, 'validate'), taskName: 'validate', status: 'COMPLETED', output: { valid: k !== 1, secret: `task-out-${id}` } }));
      if (k !== 0) {
        const t2 = at(clock++);
        const t3 = at(clock++);
        lines.push(JSON.stringify({ instanceId: id, eventType: `${TASK}started.v1`, timestamp: t2, startTime: t2, taskPosition: position(1, 'charge'), taskName: 'charge', status: 'RUNNING', input: { amount: k * 10 } }));
        // Without a title on every other namespace: errorMessage is then the detail, a payload too.
        const error = { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/runtime', status: 402, detail: `task detail of ${id}`, ...(n % 2 === 0 ? { title: 'charge failed' } : {}) };
        if (k === 1) lines.push(JSON.stringify({ instanceId: id, eventType: `${TASK}faulted.v1`, timestamp: t3, endTime: t3, taskPosition: position(1, 'charge'), taskName: 'charge', status: 'FAILED', error }));
      }
    }
  });
  return lines;
}

// ---------------------------------------------------------------------------------------------------------------
// The rules, and what they grant, computed here from the rules alone (not with the server's code).

const GROUPS = ['team-a', 'team-b', 'team-c', 'team-d'] as const;
const ADMIN_GROUP = 'acl-admins';
/** Exact, prefix, infix and suffix patterns, `*`, and patterns that match nothing or only look like they do. */
const PATTERNS = [
  'org.acme.shop', 'org.acme.*', 'org.acme', 'org.*', '*acme*', '*.shop', 'org.acme.shop.*', 'com.acme.conformance', 'conformance.*',
  'com.acme.*', 'Org.Acme.*', 'no.such.namespace', 'org.acme.sh?p', 'org%', 'org_acme.shop', 'org_acme%shop', '*',
];

interface Rule {
  readonly group: string;
  readonly namespaces: readonly string[];
  readonly payloads: boolean;
}

interface Grant {
  readonly runs: readonly string[];
  readonly payloads: readonly string[];
}

function grantOf(rules: readonly Rule[], groups: readonly string[]): Grant {
  const mine = rules.filter((rule) => groups.includes(rule.group));
  return { runs: [...new Set(mine.flatMap((r) => r.namespaces))], payloads: [...new Set(mine.filter((r) => r.payloads).flatMap((r) => r.namespaces))] };
}

const patternRegExp = (pattern: string): RegExp => new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'su');

/** `*` alone matches every namespace and runs without one; any other pattern only namespaces, `*` any run of characters. */
function matches(patterns: readonly string[], namespace: string | null): boolean {
  if (patterns.includes('*')) return true;
  return namespace !== null && patterns.some((p) => patternRegExp(p).test(namespace));
}

// ---------------------------------------------------------------------------------------------------------------
// Requests.

const ERROR = 'error { type title detail status instance }';
const TASK_CORE = `id workflowInstanceId taskName taskPosition status startDate endDate durationMs inputData outputData errorMessage ${ERROR}`;
const TASK_FIELDS = `${TASK_CORE} cursor workflowInstance { id name namespace status inputData outputData ${ERROR} }`;
const INSTANCE_FIELDS = `id name namespace version status startDate endDate lastUpdate durationMs inputData outputData cursor ${ERROR} taskExecutions { ${TASK_CORE} }`;
const Q = {
  instances: `query ($filter: WorkflowInstanceFilterInput, $orderBy: WorkflowInstanceOrderByInput, $limit: Int, $offset: Int, $after: String) {
    getWorkflowInstances(filter: $filter, orderBy: $orderBy, limit: $limit, offset: $offset, after: $after) { ${INSTANCE_FIELDS} } }`,
  tasks: `query ($filter: TaskExecutionFilterInput, $orderBy: TaskExecutionOrderByInput, $limit: Int, $offset: Int, $after: String) {
    getTaskExecutions(filter: $filter, orderBy: $orderBy, limit: $limit, offset: $offset, after: $after) { ${TASK_FIELDS} } }`,
  instance: `query ($id: ID!) { getWorkflowInstance(id: $id) { ${INSTANCE_FIELDS} } }`,
  task: `query ($id: ID!) { getTaskExecution(id: $id) { ${TASK_FIELDS} } }`,
  tasksOf: `query ($id: ID!) { getTaskExecutionsByWorkflowInstance(workflowInstanceId: $id) { ${TASK_FIELDS} } }`,
  countInstances: `query ($filter: WorkflowInstanceFilterInput) { countWorkflowInstances(filter: $filter) { value exact } }`,
  statusCounts: `query ($filter: WorkflowInstanceFilterInput) { workflowInstanceStatusCounts(filter: $filter) { status count { value exact } } }`,
  countTasks: `query ($filter: TaskExecutionFilterInput) { countTaskExecutions(filter: $filter) { value exact } }`,
  indexStatus: '{ indexStatus { backend newestEventTime rawEvents ingestErrors placeholders } }',
} as const;

type ListRequest = { kind: 'instances' | 'tasks'; filter?: Filter; orderBy: Record<string, string>; limit?: number; offset?: number; after?: number };
type Request =
  | ListRequest
  | { kind: 'instance' | 'task' | 'tasksOf'; pick: number }
  | { kind: 'countInstances' | 'statusCounts' | 'countTasks'; filter?: Filter }
  | { kind: 'indexStatus' };

const STATUSES = ['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'];
const MAX = 1000;

/** Whether the filter reads a payload: input, output, inputArgs, outputArgs (any operator), or error.detail, anywhere in the tree. */
function readsPayload(value: Json): boolean {
  if (Array.isArray(value)) return value.some(readsPayload);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value as Record<string, Json>).some(([key, v]) =>
    ['input', 'output', 'inputArgs', 'outputArgs'].includes(key) || (key === 'error' && v !== null && typeof v === 'object' && 'detail' in v) || readsPayload(v));
}

/** The row (a run or a task, with what it nests of the same run) as a subject without its payloads sees it. */
function redacted(row: Row): Row {
  const out: Row = { ...row };
  for (const key of ['inputData', 'outputData']) if (key in out) out[key] = null;
  const error = out['error'] as Row | null | undefined;
  if (error !== null && error !== undefined) out['error'] = { ...error, detail: null };
  // The deprecated errorMessage is the title, or the detail when there is none.
  if ('errorMessage' in out && (error === null || error === undefined || error['title'] === null)) out['errorMessage'] = null;
  if (Array.isArray(out['taskExecutions'])) out['taskExecutions'] = (out['taskExecutions'] as Row[]).map(redacted);
  if (out['workflowInstance'] !== null && typeof out['workflowInstance'] === 'object') out['workflowInstance'] = redacted(out['workflowInstance'] as Row);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

interface Backend {
  readonly name: 'postgresql' | 'opensearch';
  readonly reader: Reader;
}

const tally = { iterations: 0, requests: 0, nonEmpty: 0, refused: 0, refusedOptional: 0, narrowed: 0, redactedRows: 0, indexStatusAnswered: 0 };

describeBoth('access control: every answer is the admin answer narrowed by the subject\'s rules (PostgreSQL and OpenSearch)', () => {
  let ns: TestNamespace;
  let pair: Pair | undefined;
  let issuer: TestIssuer | undefined;
  let dir: string;
  const tokens = new Map<string, string>();
  const adminCache = new Map<string, GraphQLResult>();
  let namespaceOf: Map<string, string | null>;
  let nameOf: Map<string, string>;
  let allIds: string[];
  let allTaskIds: string[];
  let witnesses: (string | null)[];
  let requestArb: fc.Arbitrary<Request>;

  const clientId = (groups: readonly string[]): string => `subject-${groups.length === 0 ? 'none' : [...groups].sort().join('+')}`;

  async function tokenOf(id: string): Promise<string> {
    let token = tokens.get(id);
    if (token === undefined) {
      token = await issuer!.clientCredentialsToken(id);
      tokens.set(id, token);
    }
    return token;
  }

  beforeAll(async () => {
    ns = createTestNamespace();
    pair = await loadPair(ns, 'acl', [...eventLines(CONFORMANCE_EVENTS), ...ownLines()], 'wi_acl');
    const subsets = powerSet(GROUPS);
    issuer = await startTestIssuer({
      audience: 'https://workflow-index.test/graphql',
      clients: [{ id: 'acl-admin', secret: 'admin-secret', groups: [ADMIN_GROUP] }, ...subsets.map((groups) => ({ id: clientId(groups), secret: 'subject-secret', groups }))],
    });
    dir = mkdtempSync(join(tmpdir(), 'wi-access-control-'));

    // Every run and task as the admin sees them (on PostgreSQL; the backends answer the same, cross-backend.test.ts).
    const { apps, close } = await appsFor([]);
    try {
      const instances = await adminSend(apps[0]!, Q.instances, { limit: MAX, orderBy: { id: 'ASC' } });
      const tasks = await adminSend(apps[0]!, Q.tasks, { limit: MAX, orderBy: { id: 'ASC' } });
      const runs = rowsOf(instances, 'getWorkflowInstances');
      const taskRows = rowsOf(tasks, 'getTaskExecutions');
      expect(runs.length).toBeGreaterThan(40);
      expect(runs.length).toBeLessThan(MAX);
      expect(taskRows.length).toBeLessThan(MAX);
      namespaceOf = new Map(runs.map((r) => [r['id'] as string, r['namespace'] as string | null]));
      nameOf = new Map(runs.map((r) => [r['id'] as string, r['name'] as string]));
      // Every id, and ids of nothing.
      allIds = [...namespaceOf.keys(), 'acl-no-such-run', ''];
      allTaskIds = [...taskRows.map((t) => t['id'] as string), 'acl-shop-0:do/9/none', 'acl-no-such-run:do/0/validate'];
      const namespaces = [...new Set(namespaceOf.values())];
      expect(namespaces.length).toBeGreaterThan(8);
      expect(namespaces).toContain(null);
      // Where a rule set could grant runs without their payloads: the data's namespaces and each pattern's instances.
      witnesses = [...namespaces, ...PATTERNS.flatMap((p) => [p.replaceAll('*', ''), p.replaceAll('*', 'x.y')])];
      const pools = valuePools(runs, taskRows);
      const limit = fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined });
      const offset = fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined });
      const after = fc.option(fc.nat(), { nil: undefined, freq: 3 });
      const runFilter = fc.option(fc.oneof(instanceFilter(pools), lookupInstanceFilter(pools), namespaceFilter(namespaces)), { nil: undefined, freq: 5 });
      const taskRowFilter = fc.option(fc.oneof(taskFilter(pools), lookupTaskFilter(pools)), { nil: undefined, freq: 5 });
      const list = <K extends 'instances' | 'tasks'>(kind: K, filter: fc.Arbitrary<Filter | undefined>, order: fc.Arbitrary<Record<string, string>>) =>
        fc.record({ kind: fc.constant(kind), filter, orderBy: order, limit, offset, after }).map((r) => withoutUndefined(r) as ListRequest);
      requestArb = fc.oneof(
        { weight: 4, arbitrary: list('instances', runFilter, fc.oneof(orderBy(INSTANCE_ORDER_FIELDS), orderBy(LOOKUP_INSTANCE_ORDER_FIELDS))) },
        { weight: 3, arbitrary: list('tasks', taskRowFilter, fc.oneof(orderBy(TASK_ORDER_FIELDS), orderBy(LOOKUP_TASK_ORDER_FIELDS))) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('instance' as const, 'task' as const, 'tasksOf' as const), pick: fc.nat() }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('countInstances' as const, 'statusCounts' as const), filter: runFilter }).map((r) => withoutUndefined(r) as Request) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('countTasks' as const), filter: taskRowFilter }).map((r) => withoutUndefined(r) as Request) },
        { weight: 1, arbitrary: fc.constant({ kind: 'indexStatus' as const }) },
      );
    } finally {
      await close();
    }
  }, 300_000);

  afterAll(async () => {
    await pair?.close();
    await ns?.drop();
    await issuer?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** Both backends' production apps with AUTH_MODE=oidc and these rules (plus the admin's), from a rules file. */
  let generation = 0;
  async function appsFor(rules: readonly Rule[]): Promise<{ apps: { backend: Backend; app: App }[]; close(): Promise<void> }> {
    const rulesFile = join(dir, `rules-${generation++}.json`);
    writeFileSync(rulesFile, JSON.stringify({ rules: [{ group: ADMIN_GROUP, namespaces: ['*'], payloads: true }, ...rules] }, null, 2));
    const config = loadCoreConfig({
      NODE_ENV: 'production',
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: issuer!.issuer,
      OIDC_AUDIENCE: issuer!.audience,
      AUTHZ_RULES_FILE: rulesFile,
      // The query cost out of the way (support/backend-pair.ts says why).
      GRAPHQL_MAX_COST: '1000000000',
      GRAPHQL_MAX_COST_IN_FLIGHT: '0',
    });
    const backends: Backend[] = [{ name: 'postgresql', reader: pair!.postgresql.reader }, { name: 'opensearch', reader: pair!.opensearch.reader }];
    const apps = backends.map((backend) => ({ backend, app: createApp({ config, reader: backend.reader, logger: pino({ level: 'silent' }), backend: backend.name }) }));
    return {
      apps,
      async close() {
        for (const { app } of apps) await app.dispose();
      },
    };
  }

  async function send(app: App, token: string, query: string, variables?: Variables): Promise<GraphQLResult> {
    // Three times, each must answer the same bytes: graphql-js, compiled, then the hot path.
    const client = new GraphQLClient(undefined, 3, { authorization: `Bearer ${token}` });
    client.attach(app);
    return client.send(query, variables);
  }

  async function adminSend(entry: { backend: Backend; app: App }, query: string, variables?: Variables): Promise<GraphQLResult> {
    const key = JSON.stringify([entry.backend.name, query, variables ?? null]);
    let answer = adminCache.get(key);
    if (answer === undefined) {
      answer = await send(entry.app, await tokenOf('acl-admin'), query, variables);
      adminCache.set(key, answer);
    }
    return answer;
  }

  it('for random rule sets, subjects and requests, on both backends', async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(rulesArb(), fc.subarray([...GROUPS], { minLength: 1 }), fc.array(requestArbLazy(), { minLength: 2, maxLength: 4 }), async (rules, groups, requests) => {
        tally.iterations++;
        const grant = grantOf(rules, groups);
        const token = await tokenOf(clientId(groups));
        const { apps, close } = await appsFor(rules);
        try {
          for (const entry of apps) {
            for (const request of requests) await check(entry, token, grant, request);
          }
        } finally {
          await close();
        }
      }),
      { numRuns: 60, seed: 20260514, endOnFailure: true },
    );
    console.info(`access control: ${JSON.stringify(tally)} in ${Date.now() - started} ms`);
    expect(tally.nonEmpty).toBeGreaterThan(tally.requests * 0.25);
    expect(tally.narrowed).toBeGreaterThan(20);
    expect(tally.redactedRows).toBeGreaterThan(20);
    expect(tally.refused).toBeGreaterThan(3);
  }, 600_000);

  function requestArbLazy(): fc.Arbitrary<Request> {
    return fc.constant(null).chain(() => requestArb);
  }

  async function check(entry: { backend: Backend; app: App }, token: string, grant: Grant, request: Request): Promise<void> {
    tally.requests++;
    const sees = (id: string): boolean => namespaceOf.has(id) && matches(grant.runs, namespaceOf.get(id) ?? null);
    const seesPayloadOf = (id: string): boolean => matches(grant.payloads, namespaceOf.get(id) ?? null);
    const shown = (row: Row, runId: string): Row => {
      if (seesPayloadOf(runId)) return row;
      tally.redactedRows++;
      return redacted(row);
    };
    // A payload filter: refused when some namespace the subject sees has no payload rule (a witness of it below);
    // answered when its payload patterns include each of its run patterns as written; either between the two.
    const mustRefuse = witnesses.some((ns) => matches(grant.runs, ns) && !matches(grant.payloads, ns));
    const mayAnswer = grant.payloads.includes('*') || (!grant.runs.includes('*') && grant.runs.every((p) => grant.payloads.includes(p)));
    const label = { backend: entry.backend.name, grant, request };

    if (request.kind === 'indexStatus') {
      const answer = await send(entry.app, token, Q.indexStatus);
      noHiddenNames(answer, grant, '');
      if (grant.runs.includes('*')) {
        const admin = await adminSend(entry, Q.indexStatus);
        expect({ ...label, answer: answer.data }).toEqual({ ...label, answer: admin.data });
        tally.indexStatusAnswered++;
      } else {
        expect({ ...label, status: answer.status, data: answer.data, codes: codes(answer) }).toEqual({ ...label, status: 200, data: null, codes: ['FORBIDDEN'] });
      }
      return;
    }

    if (request.kind === 'instance' || request.kind === 'task' || request.kind === 'tasksOf') {
      const pool = request.kind === 'task' ? allTaskIds : allIds;
      const id = pool[request.pick % pool.length]!;
      const query = Q[request.kind];
      const [admin, answer] = [await adminSend(entry, query, { id }), await send(entry.app, token, query, { id })];
      noHiddenNames(answer, grant, id);
      expect(admin.errors).toEqual([]);
      const field = { instance: 'getWorkflowInstance', task: 'getTaskExecution', tasksOf: 'getTaskExecutionsByWorkflowInstance' }[request.kind];
      const adminValue = admin.data?.[field] as Row | Row[] | null;
      let expected: Row | Row[] | null;
      if (request.kind === 'tasksOf') expected = sees(id) ? (adminValue as Row[]).map((t) => shown(t, id)) : [];
      else if (adminValue === null) expected = null;
      else {
        const runId = (request.kind === 'instance' ? (adminValue as Row)['id'] : (adminValue as Row)['workflowInstanceId']) as string;
        expected = sees(runId) ? shown(adminValue as Row, runId) : null;
      }
      if (JSON.stringify(expected) !== JSON.stringify(adminValue)) tally.narrowed++;
      if (expected !== null && (!Array.isArray(expected) || expected.length > 0)) tally.nonEmpty++;
      expect({ ...label, id, answer: answer.data?.[field], errors: answer.errors }).toEqual({ ...label, id, answer: expected, errors: [] });
      return;
    }

    const filter = 'filter' in request ? request.filter : undefined;
    const payloadFilter = readsPayload(filter ?? null);
    const isTasks = request.kind === 'tasks' || request.kind === 'countTasks';
    // The admin's whole result set of the same filter (and order), to narrow and re-cut.
    const listQuery = isTasks ? Q.tasks : Q.instances;
    const listField = isTasks ? 'getTaskExecutions' : 'getWorkflowInstances';
    const order = request.kind === 'instances' || request.kind === 'tasks' ? request.orderBy : { id: 'ASC' };
    const adminAll = await adminSend(entry, listQuery, withoutUndefined({ filter, orderBy: order, limit: MAX }));
    let query: string;
    let variables: Variables;
    if (request.kind === 'instances' || request.kind === 'tasks') {
      const rows = adminAll.errors.length > 0 ? [] : rowsOf(adminAll, listField);
      const after = request.after === undefined || rows.length === 0 ? undefined : (rows[request.after % rows.length]!['cursor'] as string);
      query = listQuery;
      variables = withoutUndefined({ filter, orderBy: request.orderBy, limit: request.limit, offset: request.offset, after });
    } else {
      query = Q[request.kind];
      variables = withoutUndefined({ filter });
    }
    const answer = await send(entry.app, token, query, variables);
    noHiddenNames(answer, grant, JSON.stringify(variables));
    const codesOf = codes(answer);
    const refusedForPayloads = codesOf.length > 0 && codesOf.every((c) => c === 'FORBIDDEN');
    const dataShown = answer.data === null || Object.values(answer.data).every((v) => v === null);

    if (adminAll.errors.length > 0) {
      // A request the admin gets refused (e.g. BAD_USER_INPUT): the subject is refused too, the same way or FORBIDDEN for its payload filter.
      const adminCodes = codes(adminAll);
      expect({ ...label, dataShown }).toEqual({ ...label, dataShown: true });
      if (!(payloadFilter && !mayAnswer && refusedForPayloads)) expect({ ...label, codes: codesOf }).toEqual({ ...label, codes: adminCodes });
      return;
    }
    if (payloadFilter && mustRefuse) {
      tally.refused++;
      expect({ ...label, status: answer.status, codes: codesOf, dataShown }).toEqual({ ...label, status: 200, codes: ['FORBIDDEN'], dataShown: true });
      return;
    }
    if (payloadFilter && !mayAnswer && refusedForPayloads) {
      // The server's test is by patterns as written (conservative): refusing here reveals nothing either.
      tally.refusedOptional++;
      expect({ ...label, dataShown }).toEqual({ ...label, dataShown: true });
      return;
    }

    const all = rowsOf(adminAll, listField);
    const runIdOf = (row: Row): string => (isTasks ? row['workflowInstanceId'] : row['id']) as string;
    const visible = all.filter((row) => sees(runIdOf(row)));
    if (visible.length !== all.length) tally.narrowed++;
    let expected: Json;
    if (request.kind === 'instances' || request.kind === 'tasks') {
      let rest = all;
      const after = variables['after'];
      if (after !== undefined) rest = all.slice(all.findIndex((row) => row['cursor'] === after) + 1);
      const offset = request.offset ?? 0;
      const limit = request.limit ?? 100;
      expected = rest.filter((row) => sees(runIdOf(row))).slice(offset, offset + limit).map((row) => shown(row, runIdOf(row)));
      if ((expected as Row[]).length > 0) tally.nonEmpty++;
    } else if (request.kind === 'statusCounts') {
      expected = STATUSES.map((status) => ({ status, count: { value: visible.filter((row) => row['status'] === status).length, exact: true } }));
      if (visible.length > 0) tally.nonEmpty++;
    } else {
      expected = { value: visible.length, exact: true };
      if (visible.length > 0) tally.nonEmpty++;
    }
    const field = Object.keys(answer.data ?? {})[0] ?? '(no data)';
    expect({ ...label, variables, answer: answer.data?.[field], errors: answer.errors }).toEqual({ ...label, variables, answer: expected, errors: [] });
  }

  /** No error text names a run the subject does not see (unless the request itself named it). */
  function noHiddenNames(answer: GraphQLResult, grant: Grant, requestText: string): void {
    if (answer.errors.length === 0) return;
    const shownNames = new Set<string>();
    const hidden: string[] = [];
    for (const [id, namespace] of namespaceOf) {
      if (matches(grant.runs, namespace)) shownNames.add(id);
      else hidden.push(id);
    }
    for (const error of answer.errors) {
      for (const id of hidden) {
        if (id.length >= 6 && !requestText.includes(id) && ![...shownNames].some((s) => s.includes(id))) expect(error.message).not.toContain(id);
      }
      for (const name of hiddenOnlyNames(grant)) if (!requestText.includes(name)) expect(error.message).not.toContain(name);
    }
  }

  function hiddenOnlyNames(grant: Grant): string[] {
    const shown = new Set<string>();
    const hidden = new Set<string>();
    for (const [id, name] of nameOf) (matches(grant.runs, namespaceOf.get(id) ?? null) ? shown : hidden).add(name);
    return [...hidden].filter((name) => name.length >= 6 && ![...shown].some((s) => s.includes(name)));
  }

  it('a subject of each rule shape, spelled out: an exact namespace, a prefix, `*` without payloads, no rule', async () => {
    const rules: Rule[] = [
      { group: 'team-a', namespaces: ['org.acme.shop'], payloads: true },
      { group: 'team-b', namespaces: ['org.acme.*'], payloads: false },
      { group: 'team-c', namespaces: ['*'], payloads: false },
    ];
    const { apps, close } = await appsFor(rules);
    try {
      for (const entry of apps) {
        const ids = async (groups: string[]): Promise<string[]> => {
          const answer = await send(entry.app, await tokenOf(clientId(groups)), `{ getWorkflowInstances(limit: 1000, filter: {id: {startsWith: "acl-"}}, orderBy: {id: ASC}) { id } }`);
          expect(answer.errors).toEqual([]);
          return rowsOf(answer, 'getWorkflowInstances').map((r) => r['id'] as string);
        };
        const own = (tags: string[]) => tags.flatMap((tag) => [0, 1, 2].map((k) => `acl-${tag}-${k}`)).sort();
        expect(await ids(['team-a'])).toEqual(own(['shop']));
        // org.acme.* : not org.acme itself, not org.acmeshop, not Org.Acme.shop, not org_acme%shop.
        expect(await ids(['team-b'])).toEqual(own(['billing', 'shop', 'shop-eu']));
        expect(await ids(['team-c'])).toEqual(own(OWN_NAMESPACES.map(([tag]) => tag)));
        expect(await ids([])).toEqual([]);
        // A run's payload through team-a, not through team-b alone; a payload filter: team-a sees all it may match, team-b does not.
        const run = `query ($id: ID!) { getWorkflowInstance(id: $id) { id inputData error { detail } taskExecutions { inputData errorMessage error { detail } } } }`;
        const shop = (await send(entry.app, await tokenOf(clientId(['team-a', 'team-b'])), run, { id: 'acl-shop-1' })).data?.['getWorkflowInstance'] as Row;
        expect(shop['inputData']).toContain('in-acl-shop-1');
        const billing = (await send(entry.app, await tokenOf(clientId(['team-a', 'team-b'])), run, { id: 'acl-billing-1' })).data?.['getWorkflowInstance'] as Row;
        expect(billing).toEqual({ id: 'acl-billing-1', inputData: null, error: { detail: null }, taskExecutions: [{ inputData: null, errorMessage: null, error: null }, { inputData: null, errorMessage: null, error: { detail: null } }] });
        const payloadFilter = `{ countWorkflowInstances(filter: {input: {exists: [{key: "secret", value: true}]}}) { value } }`;
        expect(codes(await send(entry.app, await tokenOf(clientId(['team-a'])), payloadFilter))).toEqual([]);
        expect(codes(await send(entry.app, await tokenOf(clientId(['team-b'])), payloadFilter))).toEqual(['FORBIDDEN']);
        expect(codes(await send(entry.app, await tokenOf(clientId(['team-a'])), Q.indexStatus))).toEqual(['FORBIDDEN']);
        expect(codes(await send(entry.app, await tokenOf(clientId(['team-c'])), Q.indexStatus))).toEqual([]);
      }
    } finally {
      await close();
    }
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------------------------

function rulesArb(): fc.Arbitrary<Rule[]> {
  const pattern = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...PATTERNS.filter((p) => p !== '*')) }, { weight: 1, arbitrary: fc.constant('*') });
  const rule = (group: string) => fc.record({ group: fc.constant(group), namespaces: fc.uniqueArray(pattern, { minLength: 1, maxLength: 3 }), payloads: fc.boolean() });
  return fc.tuple(...GROUPS.map((group) => fc.array(rule(group), { maxLength: 2 }))).map((lists) => lists.flat());
}

/** Filters on the run's namespace, some the rules' own patterns as like patterns. */
function namespaceFilter(namespaces: readonly (string | null)[]): fc.Arbitrary<Filter> {
  const named = namespaces.filter((n): n is string => n !== null);
  return fc.oneof(
    fc.constantFrom(...named).map((eq) => ({ namespace: { eq } })),
    fc.constantFrom(...PATTERNS).map((like) => ({ namespace: { like } })),
    fc.boolean().map((isNull) => ({ namespace: { isNull } })),
    fc.subarray(named, { maxLength: 3 }).map((values) => ({ not: { namespace: { in: values } } })),
  );
}

function powerSet<T>(items: readonly T[]): T[][] {
  return items.reduce<T[][]>((sets, item) => [...sets, ...sets.map((set) => [...set, item])], [[]]);
}

function withoutUndefined<T extends Record<string, unknown>>(record: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

function rowsOf(answer: GraphQLResult, field: string): Row[] {
  if (answer.errors.length > 0) throw new Error(`${field} failed: ${JSON.stringify(answer.errors)}`);
  return (answer.data?.[field] ?? []) as Row[];
}

function codes(answer: GraphQLResult): unknown[] {
  return answer.errors.map((e) => e.extensions?.['code']);
}
