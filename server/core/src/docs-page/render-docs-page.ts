// /docs: one self-contained HTML page (no external resources). The schema reference and the
// configuration table are generated from the SDL and the config key list, so they cannot drift;
// the guide and its examples (which run against the demo data loaded in development) are written here.
import type { GraphQLArgument, GraphQLField, GraphQLInputField, GraphQLNamedType } from 'graphql';
import type { CoreConfig } from '../config.js';
import { CORE_CONFIG_KEYS } from '../config.js';
import { ErrorCode } from '../errors.js';
import { graphql } from '../graphql-runtime.js';

const { buildSchema, getNamedType, isEnumType, isInputObjectType, isObjectType, isScalarType } = graphql;

function esc(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Descriptions use `code` spans; everything else is escaped. */
function prose(value: string | null | undefined): string {
  return esc(value ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');
}

function typeLink(type: { toString(): string }): string {
  const text = type.toString();
  const name = getNamedType(type as Parameters<typeof getNamedType>[0])?.name ?? text;
  return `<code>${esc(text).replace(esc(name), `<a href="#type-${esc(name)}">${esc(name)}</a>`)}</code>`;
}

function example(title: string, query: string, variables?: Record<string, unknown>): string {
  const vars = variables === undefined ? '' : `<div class="vars">variables</div><pre>${esc(JSON.stringify(variables, null, 2))}</pre>`;
  // GraphiQL opens the query of its ?query= parameter; it takes no variables from the URL.
  const run = `<a class="run-in-ui" href="/q/graphql-ui?query=${esc(encodeURIComponent(query.trim()))}">run in the UI</a>${variables === undefined ? '' : ' (then paste the variables into its Variables pane)'}`;
  return `<div class="example"><div class="ex-title">${prose(title)}</div><pre>${esc(query.trim())}</pre>${vars}<div class="run">${run}</div></div>`;
}

function fieldRows(fields: readonly (GraphQLField<unknown, unknown> | GraphQLInputField)[]): string {
  return fields
    .map((f) => {
      const args = 'args' in f && f.args.length > 0 ? `<ul class="args">${f.args.map((a: GraphQLArgument) => `<li><code>${esc(a.name)}</code>: ${typeLink(a.type)} — ${prose(a.description)}</li>`).join('')}</ul>` : '';
      const deprecated = 'deprecationReason' in f && f.deprecationReason ? ` <span class="deprecated">deprecated: ${prose(f.deprecationReason)}</span>` : '';
      return `<tr><td><code>${esc(f.name)}</code></td><td>${typeLink(f.type)}</td><td>${prose(f.description)}${deprecated}${args}</td></tr>`;
    })
    .join('');
}

function typeSection(type: GraphQLNamedType): string {
  const kind = isObjectType(type) ? 'type' : isInputObjectType(type) ? 'input' : isEnumType(type) ? 'enum' : 'scalar';
  let body = '';
  if (isObjectType(type) || isInputObjectType(type)) {
    body = `<table><thead><tr><th>field</th><th>type</th><th>meaning</th></tr></thead><tbody>${fieldRows(Object.values(type.getFields()))}</tbody></table>`;
  } else if (isEnumType(type)) {
    body = `<table><tbody>${type.getValues().map((v) => `<tr><td><code>${esc(v.name)}</code></td><td>${prose(v.description)}</td></tr>`).join('')}</tbody></table>`;
  }
  return `<section class="type" id="type-${esc(type.name)}"><h3>${kind} ${esc(type.name)}</h3><p>${prose(type.description)}</p>${body}</section>`;
}

export function renderDocsPage(deps: { readonly config: CoreConfig; readonly sdl: string }): string {
  const { config, sdl } = deps;
  const schema = buildSchema(sdl);
  const types = Object.values(schema.getTypeMap())
    .filter((t) => !t.name.startsWith('__') && !(isScalarType(t) && ['String', 'Int', 'Boolean', 'ID', 'Float'].includes(t.name)))
    .sort((a, b) => (a.name === 'Query' ? -1 : b.name === 'Query' ? 1 : a.name.localeCompare(b.name)));
  const g = config.graphql;

  const operations = `
<h2 id="operations">Operations</h2>
<p>Send <code>POST /graphql</code> with <code>Content-Type: application/json</code> and a body
<code>{"query": "…", "variables": {…}, "operationName": "…"}</code>. <code>GET /graphql</code> is refused with 405.
Try the queries below in the <a href="/q/graphql-ui">GraphQL UI</a>; in development mode they run against the demo events.</p>
<table><thead><tr><th>query</th><th>returns</th></tr></thead><tbody>
<tr><td><code>getWorkflowInstances(limit, offset, filter, orderBy)</code></td><td>a page of instances; default order <code>startDate DESC</code>, then <code>id</code></td></tr>
<tr><td><code>getWorkflowInstance(id)</code></td><td>one instance, or <code>null</code> for an unknown id</td></tr>
<tr><td><code>getTaskExecutions(limit, offset, filter, orderBy)</code></td><td>a page of task executions; default order <code>startDate DESC</code>, then <code>id</code></td></tr>
<tr><td><code>getTaskExecution(id)</code></td><td>one task execution, or <code>null</code></td></tr>
<tr><td><code>getTaskExecutionsByWorkflowInstance(workflowInstanceId)</code></td><td>all executions of one instance, chronological; <code>[]</code> for an unknown id</td></tr>
</tbody></table>
${example('The ten newest instances with their tasks (tasks of a whole page are loaded in one batch)', `
query Recent {
  getWorkflowInstances(limit: 10) {
    id name namespace version status startDate endDate lastUpdate
    error { type title status }
    taskExecutions { id taskName taskPosition status startDate endDate errorMessage }
  }
}`)}
${example('One instance with its payloads (JSON text: parse it on the client)', `
{
  getWorkflowInstance(id: "01KRDQDZBS8TBDWA72Q1575QHY") {
    name status inputData outputData
    error { type title detail status instance }
  }
}`)}
${example('The executions of one instance', `
{
  getTaskExecutionsByWorkflowInstance(workflowInstanceId: "01KRDQEAPWDTERF1SDDX5A5SQV") {
    id taskPosition status startDate endDate
  }
}`)}
${example('One task execution by id', `
{ getTaskExecution(id: "01KRDQDZBS8TBDWA72Q1575QHY:do/1/chargeCard") { status error { title detail } } }`)}`;

  const filters = `
<h2 id="filters">Filters</h2>
<p>Every field of a filter takes an operator object. All operators given for one field must hold together (AND),
and all fields given in one filter must match (AND). <code>and</code>, <code>or</code> and <code>not</code> combine filters.
Logic is two-valued: a condition on a missing value is false (<code>ne: "x"</code> does not match a missing value;
<code>isNull: true</code> does), and <code>not</code> matches exactly what its filter does not match, missing values included.
Text matching is case-sensitive. An explicit <code>null</code> inside a filter places no condition.</p>
<table><thead><tr><th>filter input</th><th>operators</th></tr></thead><tbody>
<tr><td><code>StringFilterInput</code></td><td><code>eq ne in like contains startsWith endsWith isNull</code></td></tr>
<tr><td><code>DateTimeFilterInput</code></td><td><code>eq ne gt gte lt lte between isNull</code></td></tr>
<tr><td><code>IntFilterInput</code></td><td><code>eq ne gt gte lt lte in</code></td></tr>
<tr><td><code>WorkflowInstanceStatusFilterInput</code>, <code>TaskStatusFilterInput</code></td><td><code>eq ne in</code></td></tr>
<tr><td><code>JsonFilterInput</code></td><td><code>eq: [{key, value}]</code></td></tr>
<tr><td><code>ErrorFilterInput</code></td><td><code>type title detail instance</code> (text) and <code>status</code> (integer)</td></tr>
</tbody></table>
<h3>Text</h3>
${example('eq — exact match', `{ getWorkflowInstances(filter: {name: {eq: "order-intake"}}) { id status } }`)}
${example('ne — differs (missing values never match)', `{ getWorkflowInstances(filter: {namespace: {ne: "com.acme.orders"}}) { name namespace } }`)}
${example('in — one of; `in: []` matches nothing', `{ getWorkflowInstances(filter: {name: {in: ["payment-capture", "ledger-sync"]}}) { name } }`)}
${example('like — `*` any run of characters, `?` exactly one; `%` and `_` are ordinary characters', `
{
  a: getWorkflowInstances(filter: {name: {like: "order-*"}}) { name }
  b: getWorkflowInstances(filter: {name: {like: "?anual-review"}}) { name }
}`)}
${example('contains / startsWith / endsWith — literal text (no wildcards)', `
{
  a: getWorkflowInstances(filter: {name: {contains: "capture"}}) { name }
  b: getWorkflowInstances(filter: {namespace: {startsWith: "com.acme"}}) { name }
  c: getWorkflowInstances(filter: {name: {endsWith: "-sync"}}) { name }
}`)}
${example('isNull — present or missing', `{ getWorkflowInstances(filter: {endDate: {isNull: false}, version: {isNull: false}}) { name endDate } }`)}
${example('Several operators on one field all hold', `{ getWorkflowInstances(filter: {name: {startsWith: "order", ne: "order-intake"}}) { name } }`)}
<h3>Status</h3>
${example('Instance status (enum)', `{ getWorkflowInstances(filter: {status: {in: [COMPLETED, FAULTED]}}) { name status } }`)}
${example('Task status (text): RUNNING, COMPLETED, FAULTED, CANCELLED, SUSPENDED; FAILED means FAULTED', `{ getTaskExecutions(filter: {status: {eq: "FAILED"}}) { id status error { title } } }`)}
<h3>Time</h3>
<p>Values are <code>DateTime</code>: ISO-8601 with an offset, e.g. <code>2026-05-12T09:14:03Z</code> or
<code>2026-05-12T11:14:03.5+02:00</code>. A value without an offset or without a time is rejected with BAD_USER_INPUT.
Comparison is at microsecond precision. <code>startTime</code>/<code>endTime</code> (instances) and <code>enter</code>/<code>exit</code>
(tasks) are aliases of <code>startDate</code>/<code>endDate</code>.</p>
${example('gt / gte / lt / lte', `{ getWorkflowInstances(filter: {startDate: {gte: "2026-05-12T09:14:10Z", lt: "2026-05-12T09:14:20Z"}}) { name startDate } }`)}
${example('between — both ends included', `{ getWorkflowInstances(filter: {startTime: {between: {from: "2026-05-12T09:14:03.512378Z", to: "2026-05-12T09:14:10Z"}}}) { name startDate } }`)}
${example('eq / ne — at this exact instant', `{ getWorkflowInstances(filter: {startDate: {eq: "2026-05-12T11:14:03.512378+02:00"}}) { name } }`)}
${example('Task aliases enter / exit', `{ getTaskExecutions(filter: {enter: {gte: "2026-05-12T09:15:00Z"}, exit: {isNull: false}}) { taskName startDate endDate } }`)}
<h3>Payloads (JSON)</h3>
<p><code>key</code> is a dot path (a numeric segment also indexes arrays). The pair matches when the value there equals
<code>value</code> as text, numerically when both are numbers (<code>"129.90"</code> matches <code>129.9</code>), or as a boolean.
A missing path never matches. Several pairs all must match. Instance fields: <code>input</code>, <code>output</code>;
task fields: <code>inputArgs</code>, <code>outputArgs</code>.</p>
${example('Nested key, array index, number', `
{
  a: getWorkflowInstances(filter: {input: {eq: [{key: "customer.address.country", value: "CH"}]}}) { name }
  b: getWorkflowInstances(filter: {input: {eq: [{key: "items.0.sku", value: "BK-101"}]}}) { name }
  c: getWorkflowInstances(filter: {input: {eq: [{key: "amount.value", value: "129.90"}]}}) { name }
}`)}
${example('Instance output; task output (outputArgs)', `
{
  a: getWorkflowInstances(filter: {output: {eq: [{key: "status", value: "RESERVED"}]}}) { name }
  b: getTaskExecutions(filter: {outputArgs: {eq: [{key: "journal.period", value: "2026-05"}, {key: "posted", value: "2"}]}}) { taskName }
}`)}
<h3>Errors</h3>
${example('Error fields (text operators; status takes integer operators)', `
{
  getWorkflowInstances(filter: {error: {status: {gte: 500}, title: {eq: "Service Unavailable"}}}) { name error { title detail } }
}`)}
<h3>Task positions</h3>
${example('taskPosition with or without the leading slash', `{ getTaskExecutions(filter: {taskPosition: {eq: "/do/1/chargeCard"}}) { id taskPosition } }`)}
<h3>and / or / not</h3>
${example('Combining filters', `
{
  getWorkflowInstances(filter: {
    or: [{name: {eq: "order-intake"}}, {namespace: {eq: "com.acme.billing"}}]
    not: {status: {eq: CANCELLED}}
  }) { name namespace status }
}`)}
<p><code>and: []</code> matches everything; <code>or: []</code> matches nothing.</p>`;

  const shorthand = `
<h2 id="shorthand">Shorthand</h2>
<p>A bare value means <code>{eq: value}</code> on every field whose filter has a single-value <code>eq</code>
(text, status, time and integer fields, including the fields inside <code>error</code>; not the JSON fields).
It works in query text and in variables, at any depth of <code>and</code>/<code>or</code>/<code>not</code>; introspection still shows the typed inputs.</p>
${example('In the query text', `{ getWorkflowInstances(filter: {name: "order-intake", namespace: "com.acme.orders", status: COMPLETED}) { id } }`)}
${example('In variables', `query Find($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id name status } }`, { f: { status: 'FAULTED', or: [{ namespace: 'com.acme.billing' }, { name: 'address-normalizer' }] } })}`;

  const ordering = `
<h2 id="ordering">Ordering</h2>
<p><code>orderBy</code> keys apply in the order written, in the query text or in the variables JSON; <code>id</code> is always
the final tie-breaker, so offset pagination is stable. Nulls sort last in both directions. Text sorts by Unicode code point
(case-sensitive), status as text, times chronologically. Aliases (<code>startTime</code>, <code>enter</code>, …) sort by their field;
a field named twice counts where it first appears. Defaults: instances and <code>getTaskExecutions</code> <code>startDate DESC</code>;
the tasks of one instance chronologically.</p>
${example('Name first, then newest first', `{ getWorkflowInstances(orderBy: {name: ASC, startDate: DESC}) { name startDate } }`)}
${example('Order from variables (the key order of the JSON counts)', `query Sorted($o: TaskExecutionOrderByInput) { getTaskExecutions(orderBy: $o, limit: 20) { taskName status startDate } }`, { o: { status: 'ASC', enter: 'DESC' } })}`;

  const additions = `
<h2 id="additions">Counts, durations, tasks with their runs, index status</h2>
<p>Beyond the contract (issue 9). A backend that does not implement one of these yet answers BAD_USER_INPUT
"… not supported by the &lt;backend&gt; backend yet"; the contract's queries keep working. Counts are
<code>{value, exact}</code>: exact up to COUNT_EXACT_LIMIT matches, the backend's estimate above it
(<code>exact: false</code>); a count costs COUNT_EXACT_LIMIT/100 rows of GRAPHQL_MAX_COST.</p>
${example('How many runs match, and how many of each status, in one request', `{
  countWorkflowInstances(filter: {namespace: "com.acme.orders"}) { value exact }
  workflowInstanceStatusCounts(filter: {namespace: "com.acme.orders"}) { status count { value exact } }
  countTaskExecutions(filter: {status: "FAULTED"}) { value exact }
}`)}
${example('The slowest runs: durationMs is endDate − startDate in milliseconds (µs fractions), null while running; runs without one sort last', `{ getWorkflowInstances(orderBy: {duration: DESC}, filter: {duration: {gt: 1000}}, limit: 5) { name startDate endDate durationMs } }`)}
${example('Runs where a task faulted (taskExecutions: at least one task execution matches all its conditions)', `{ getWorkflowInstances(filter: {taskExecutions: {status: "FAULTED"}}) { id name status } }`)}
${example('Tasks filtered by their run, each with its run (batched for the whole page)', `{ getTaskExecutions(filter: {taskName: "chargeCard", status: "FAULTED", workflowName: "payment-capture"}) {
  id durationMs error { title } workflowInstance { id name version } } }`)}
${example('JSON operators: ne, gt/gte/lt/lte (numbers numerically, other values as text), in, contains (strings), exists (false also matches a missing payload)', `{ getWorkflowInstances(filter: {input: {
  gte: [{key: "items.0.price", value: "20"}], in: [{key: "shipTo.country", values: ["BR", "PT"]}],
  exists: [{key: "giftNote", value: true}], ne: [{key: "customer.name", value: "nobody"}] }}) { id name } }`)}
${example('Index freshness: the newest indexed event, the lag to now, ingestion counters', `{ indexStatus { backend newestEventTime lagSeconds rawEvents ingestErrors placeholders } }`)}`;

  const pagination = `
<h2 id="pagination">Pagination</h2>
<p><code>limit</code> (default ${g.defaultLimit}, at most ${g.maxLimit}) and <code>offset</code> (default 0):
<code>limit: 20, offset: 40</code> returns results 41–60. <code>limit: 0</code> returns <code>[]</code>.
A negative or too large limit or a negative offset is a BAD_USER_INPUT error naming the bound,
e.g. <code>limit must be between 0 and ${g.maxLimit}, got 5000</code>.</p>
${example('The second page of five', `{ getWorkflowInstances(limit: 5, offset: 5) { id name } }`)}`;

  const output = `
<h2 id="values">Values served</h2>
<ul>
<li>Times: ISO-8601 UTC with a trailing <code>Z</code>; fractional seconds up to microseconds, trailing zeros trimmed and
omitted when zero (<code>2026-05-12T09:14:03.512378Z</code>, <code>…:29.5Z</code>, <code>…:55:00Z</code>); never rounded to milliseconds.</li>
<li>Payloads (<code>inputData</code>, <code>outputData</code>): JSON text, parse it on the client; <code>null</code> when absent.</li>
<li><code>errorMessage</code> (deprecated): the error title, or the detail when there is no title.</li>
<li>Instances whose <code>workflow.started</code> event has not arrived yet are not served, nor are their tasks.</li>
</ul>`;

  const errorCodes: [string, string][] = [
    [
      ErrorCode.BAD_USER_INPUT,
      `An argument is not allowed (limit, offset, DateTime without offset, empty JSON key segment, unknown task status, variable of the wrong type, a NUL character or lone surrogate in a value, a JSON filter number outside the double range, and/or/not nested deeper than ${g.maxFilterDepth} levels, a filter of more than ${g.maxFilterConditions} conditions or an in list of more than ${g.maxFilterInValues} values), the request may read more than ${g.maxCost} rows (GRAPHQL_MAX_COST: each list counts its limit and 1 per 10 rows its offset skips, each taskExecutions list ${g.costTasksPerInstance} per instance of its list), or it is a mutation or subscription (the API is read-only); the message says what is allowed.`,
    ],
    [ErrorCode.QUERY_TIMEOUT, 'The query ran past the time the backend allows and was stopped (extensions.cost: what it was priced at; extensions.timeoutMs); it would again: narrow it, do not retry it.'],
    [ErrorCode.SERVICE_UNAVAILABLE, 'The storage backend cannot be reached, does not answer or is busy; retry later.'],
    [ErrorCode.INTERNAL_SERVER_ERROR, 'Anything unexpected: the message is "Unexpected error."; the server log has the details, the query and the variables.'],
    [ErrorCode.GRAPHQL_PARSE_FAILED, 'The query is not valid GraphQL syntax.'],
    [ErrorCode.GRAPHQL_VALIDATION_FAILED, 'The query does not fit the schema (unknown field, wrong literal type, introspection when disabled, …).'],
    [ErrorCode.MAX_DEPTH_EXCEEDED, `Selections nested deeper than ${g.maxDepth} levels; nothing is executed.`],
    [ErrorCode.MAX_ALIASES_EXCEEDED, `More than ${g.maxAliases} aliases.`],
    [ErrorCode.MAX_TOKENS_EXCEEDED, `More than ${g.maxTokens} tokens in the document.`],
    [ErrorCode.MAX_DIRECTIVES_EXCEEDED, `More than ${g.maxDirectives} directives.`],
    [ErrorCode.METHOD_NOT_ALLOWED, 'GET (or any method but POST) on /graphql: HTTP 405, nothing is executed.'],
    ['REQUEST_ENTITY_TOO_LARGE', `Request body above ${config.http.maxBodyBytes} bytes (after gzip decompression): HTTP 413.`],
    ['BAD_REQUEST', 'The body is not JSON or not valid gzip (HTTP 400), or uses a Content-Encoding other than gzip (HTTP 415).'],
    [ErrorCode.CSRF_HEADER_REQUIRED, 'A POST that is not Content-Type: application/json and carries none of the headers x-graphql-yoga-csrf, x-requested-with, apollo-require-preflight: HTTP 403.'],
    [
      ErrorCode.TOO_MANY_REQUESTS,
      `The client already has ${config.http.maxRequestsPerClient} requests in flight (HTTP_MAX_REQUESTS_PER_CLIENT): HTTP 429 with Retry-After; wait for an answer, then retry.`,
    ],
    [
      ErrorCode.REQUEST_TIMEOUT,
      `The request's headers took longer than ${config.http.headersTimeoutMs} ms to arrive, or the whole request (body included) longer than ${config.http.bodyTimeoutMs} ms from its first byte (HTTP_HEADERS_TIMEOUT_MS, HTTP_BODY_TIMEOUT_MS): HTTP 408 and the connection is closed. Send the body right after the headers.`,
    ],
  ];
  const errors = `
<h2 id="errors">Errors</h2>
<p>Errors follow the GraphQL response format; each carries a stable <code>extensions.code</code>.</p>
<table><thead><tr><th>code</th><th>when</th></tr></thead><tbody>
${errorCodes.map(([code, when]) => `<tr><td><code>${code}</code></td><td>${esc(when)}</td></tr>`).join('\n')}
</tbody></table>`;

  const endpoints = `
<h2 id="endpoints">Endpoints</h2>
<table><thead><tr><th>path</th><th>what</th></tr></thead><tbody>
<tr><td><code>POST /graphql</code></td><td>GraphQL (JSON)</td></tr>
<tr><td><code>/q/graphql-ui</code></td><td>GraphiQL, works offline</td></tr>
<tr><td><code>/graphql/schema.graphql</code></td><td>the schema (SDL)</td></tr>
<tr><td><code>/q/health/live</code>, <code>/q/health/ready</code>, <code>/q/health</code></td><td>MicroProfile Health JSON; ready checks the backend (${config.health.backendTimeoutMs} ms timeout) and disk space; 503 when DOWN</td></tr>
<tr><td><code>/q/metrics</code></td><td>Prometheus text: process metrics, <code>http_server_requests_seconds</code>, <code>graphql_operation_duration_seconds</code>, <code>graphql_errors_total</code>, <code>workflow_index_pool_connections</code>, ingestion gauges <code>workflow_index_*</code></td></tr>
<tr><td><code>/docs</code></td><td>this page (development mode only)</td></tr>
</tbody></table>`;

  const configuration = `
<h2 id="configuration">Configuration</h2>
<p>Environment variables (command-line flags, where a command takes them, win over the environment). All keys are checked at
start-up and every problem is reported at once. The storage backend adds its own keys (see the README).</p>
<table><thead><tr><th>key</th><th>development</th><th>production</th><th>meaning</th></tr></thead><tbody>
${CORE_CONFIG_KEYS.map((k) => `<tr><td><code>${esc(k.key)}</code></td><td><code>${esc(k.development)}</code></td><td><code>${esc(k.production)}</code></td><td>${esc(k.description)}</td></tr>`).join('\n')}
</tbody></table>`;

  const reference = `<h2 id="reference">Schema reference</h2>${types.map(typeSection).join('\n')}`;

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Workflow Index — API documentation</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
main{max-width:980px;margin:0 auto;padding:24px 32px 64px}
nav{position:sticky;top:0;background:#1d2330;padding:10px 32px}nav a{color:#e8ecf4;margin-right:16px;text-decoration:none;font-size:14px}
h1{margin-top:8px}h2{border-bottom:1px solid #d8dde6;padding-bottom:4px;margin-top:40px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{background:#f0f2f6;padding:10px 12px;border-radius:6px;overflow-x:auto;margin:4px 0 12px}
table{border-collapse:collapse;width:100%;margin:8px 0 16px}td,th{border:1px solid #d8dde6;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#eef1f6}.example{margin:10px 0}.ex-title{font-weight:600}.vars{font-size:12px;color:#5a6478}
.deprecated{color:#a3461b}.args{margin:4px 0 0;padding-left:18px}section.type h3{margin-bottom:2px}
</style></head>
<body><nav><a href="#operations">Operations</a><a href="#filters">Filters</a><a href="#shorthand">Shorthand</a><a href="#ordering">Ordering</a><a href="#additions">Counts &amp; more</a><a href="#pagination">Pagination</a><a href="#errors">Errors</a><a href="#endpoints">Endpoints</a><a href="#configuration">Configuration</a><a href="#reference">Schema</a><a href="/q/graphql-ui">GraphQL UI</a></nav>
<main>
<h1>Workflow Index API</h1>
<p>Read-only GraphQL over the execution history of Serverless Workflow applications: workflow instances and their task
executions, normalized from the lifecycle events the workflow runtime prints. The examples use the demo data
(namespaces <code>com.acme.orders</code> and <code>com.acme.billing</code>; workflows <code>order-intake</code>,
<code>payment-capture</code>, <code>customer-notify</code>, <code>order-fulfilment</code>, <code>ledger-sync</code>,
<code>address-normalizer</code>, <code>manual-review</code>).</p>
${operations}
${filters}
${shorthand}
${ordering}
${additions}
${pagination}
${output}
${errors}
${endpoints}
${configuration}
${reference}
</main></body></html>
`;
}
