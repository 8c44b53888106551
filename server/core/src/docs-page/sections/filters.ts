import { example, paragraph, subheading, table } from '../blocks.js';
import type { Section } from '../blocks.js';

const HOUR_MS = 3_600_000;

/** The start of the hour `hoursAgo` hours before `nowMs`, ISO-8601 in UTC, or at the offset `+hh:00`. */
function hourBefore(nowMs: number, hoursAgo: number, offsetHours = 0): string {
  const hour = Math.floor(nowMs / HOUR_MS) * HOUR_MS - hoursAgo * HOUR_MS;
  const text = new Date(hour + offsetHours * HOUR_MS).toISOString().replace('.000Z', '');
  return offsetHours === 0 ? `${text}Z` : `${text}+${String(offsetHours).padStart(2, '0')}:00`;
}

/**
 * The filter examples; the times are hours before `nowMs` (the page's rendering, right after the start), so in
 * development mode they find the demo's runs, which are placed over the hours before the start.
 */
export const filters = (nowMs: number): Section => ({
  id: 'filters',
  title: 'Filters',
  nav: 'Filters',
  blocks: [
    paragraph(`Every field of a filter takes an operator object. All operators given for one field must hold together (AND),
and all fields given in one filter must match (AND). <code>and</code>, <code>or</code> and <code>not</code> combine filters.
Logic is two-valued: a condition on a missing value is false (<code>ne: "x"</code> does not match a missing value;
<code>isNull: true</code> does), and <code>not</code> matches exactly what its filter does not match, missing values included.
Text matching is case-sensitive. An explicit <code>null</code> inside a filter places no condition: a <code>null</code> item of an
<code>in</code> list is skipped (it equals no value, so <code>in: [null]</code> matches nothing), and so is a <code>null</code> JSON pair;
a JSON pair without its <code>key</code> or <code>value</code> is BAD_USER_INPUT.`),
    table(
      ['filter input', 'operators'],
      [
        ['`StringFilterInput`', '`eq ne in like contains startsWith endsWith isNull`'],
        ['`DateTimeFilterInput`', '`eq ne gt gte lt lte between isNull`'],
        ['`IntFilterInput`', '`eq ne gt gte lt lte in`'],
        ['`WorkflowInstanceStatusFilterInput`, `TaskStatusFilterInput`', '`eq ne in`'],
        ['`JsonFilterInput`', '`eq: [{key, value}]`'],
        ['`ErrorFilterInput`', '`type title detail instance` (text) and `status` (integer)'],
      ],
    ),
    subheading('Text'),
    example('eq — exact match', `{ getWorkflowInstances(filter: {name: {eq: "order-intake"}}) { id status } }`),
    example('ne — differs (missing values never match)', `{ getWorkflowInstances(filter: {namespace: {ne: "com.acme.orders"}}) { name namespace } }`),
    example('in — one of; `in: []` matches nothing', `{ getWorkflowInstances(filter: {name: {in: ["payment-capture", "ledger-sync"]}}) { name } }`),
    example('like — `*` any run of characters, `?` exactly one; `%` and `_` are ordinary characters', `
{
  a: getWorkflowInstances(filter: {name: {like: "order-*"}}) { name }
  b: getWorkflowInstances(filter: {name: {like: "?anual-review"}}) { name }
}`),
    example('contains / startsWith / endsWith — literal text (no wildcards)', `
{
  a: getWorkflowInstances(filter: {name: {contains: "capture"}}) { name }
  b: getWorkflowInstances(filter: {namespace: {startsWith: "com.acme"}}) { name }
  c: getWorkflowInstances(filter: {name: {endsWith: "-sync"}}) { name }
}`),
    example('isNull — present or missing', `{ getWorkflowInstances(filter: {endDate: {isNull: false}, version: {isNull: false}}) { name endDate } }`),
    example('Several operators on one field all hold', `{ getWorkflowInstances(filter: {name: {startsWith: "order", ne: "order-intake"}}) { name } }`),
    subheading('Status'),
    example('Instance status (enum)', `{ getWorkflowInstances(filter: {status: {in: [COMPLETED, FAULTED]}}) { name status } }`),
    example('Task status (text): RUNNING, COMPLETED, FAULTED, CANCELLED, SUSPENDED; FAILED means FAULTED', `{ getTaskExecutions(filter: {status: {eq: "FAILED"}}) { id status error { title } } }`),
    subheading('Time'),
    paragraph(`Values are <code>DateTime</code>: ISO-8601 with an offset, e.g. <code>2026-05-12T09:14:03Z</code> or
<code>2026-05-12T11:14:03.5+02:00</code>. A value without an offset or without a time is rejected with BAD_USER_INPUT.
Comparison is at microsecond precision. <code>startTime</code>/<code>endTime</code> (instances) and <code>enter</code>/<code>exit</code>
(tasks) are aliases of <code>startDate</code>/<code>endDate</code>.`),
    example('gt / gte / lt / lte — the runs started in the last three hours', `{ getWorkflowInstances(filter: {startDate: {gte: "${hourBefore(nowMs, 3)}", lt: "${hourBefore(nowMs, -1)}"}}) { name startDate } }`),
    example('between — both ends included', `{ getWorkflowInstances(filter: {startTime: {between: {from: "${hourBefore(nowMs, 7)}", to: "${hourBefore(nowMs, 4)}"}}}) { name startDate } }`),
    example('eq / ne — at this exact instant (to the microsecond: copy a startDate from a result); any offset', `{ getWorkflowInstances(filter: {startDate: {ne: "${hourBefore(nowMs, 1, 2)}"}}) { name startDate } }`),
    example('Task aliases enter / exit', `{ getTaskExecutions(filter: {enter: {gte: "${hourBefore(nowMs, 2)}"}, exit: {isNull: false}}) { taskName startDate endDate } }`),
    subheading('Payloads (JSON)'),
    paragraph(`<code>key</code> is a dot path (a numeric segment also indexes arrays). The pair matches when the value there equals
<code>value</code> as text, numerically when both are numbers (<code>"129.90"</code> matches <code>129.9</code>), or as a boolean.
A missing path never matches. Several pairs all must match. Instance fields: <code>input</code>, <code>output</code>;
task fields: <code>inputArgs</code>, <code>outputArgs</code>.`),
    example('Nested key, array index, number', `
{
  a: getWorkflowInstances(filter: {input: {eq: [{key: "customer.address.country", value: "CH"}]}}) { name }
  b: getWorkflowInstances(filter: {input: {eq: [{key: "items.0.sku", value: "BK-101"}]}}) { name }
  c: getWorkflowInstances(filter: {input: {eq: [{key: "amount.value", value: "129.90"}]}}) { name }
}`),
    example('Instance output; task output (outputArgs)', `
{
  a: getWorkflowInstances(filter: {output: {eq: [{key: "status", value: "RESERVED"}]}}) { name }
  b: getTaskExecutions(filter: {outputArgs: {eq: [{key: "journal.period", value: "2026-05"}, {key: "posted", value: "2"}]}}) { taskName }
}`),
    subheading('Errors'),
    example('Error fields (text operators; status takes integer operators)', `
{
  getWorkflowInstances(filter: {error: {status: {gte: 500}, title: {eq: "Service Unavailable"}}}) { name error { title detail } }
}`),
    subheading('Task positions'),
    example('taskPosition with or without the leading slash', `{ getTaskExecutions(filter: {taskPosition: {eq: "/do/1/chargeCard"}}) { id taskPosition } }`),
    subheading('and / or / not'),
    example('Combining filters', `
{
  getWorkflowInstances(filter: {
    or: [{name: {eq: "order-intake"}}, {namespace: {eq: "com.acme.billing"}}]
    not: {status: {eq: CANCELLED}}
  }) { name namespace status }
}`),
    paragraph('<code>and: []</code> matches everything; <code>or: []</code> matches nothing.'),
  ],
});
