import { example, paragraph } from '../blocks.js';
import type { Section } from '../blocks.js';

/** The queries beyond the contract. */
export const ADDITIONS: Section = {
  id: 'additions',
  title: 'Counts, durations, tasks with their runs, index status',
  nav: 'Counts & more',
  blocks: [
    paragraph(`Beyond the contract, on both backends. Counts are
<code>{value, exact}</code>: exact up to COUNT_EXACT_LIMIT matches, the backend's estimate above it
(<code>exact: false</code>); a count costs COUNT_EXACT_LIMIT/100 rows of GRAPHQL_MAX_COST.`),
    example('How many runs match, and how many of each status, in one request', `{
  countWorkflowInstances(filter: {namespace: {eq: "com.acme.orders"}}) { value exact }
  workflowInstanceStatusCounts(filter: {namespace: {eq: "com.acme.orders"}}) { status count { value exact } }
  countTaskExecutions(filter: {status: {eq: "FAULTED"}}) { value exact }
}`),
    example(
      'The slowest runs: durationMs is endDate − startDate in milliseconds (µs fractions), null while running; runs without one sort last',
      `{ getWorkflowInstances(orderBy: {duration: DESC}, filter: {duration: {gt: 1000}}, limit: 5) { name startDate endDate durationMs } }`,
    ),
    example('Runs where a task faulted (taskExecutions: at least one task execution matches all its conditions)', `{ getWorkflowInstances(filter: {taskExecutions: {status: {eq: "FAULTED"}}}) { id name status } }`),
    example('Tasks filtered by their run, each with its run (batched for the whole page)', `{ getTaskExecutions(filter: {taskName: {eq: "chargeCard"}, status: {eq: "FAULTED"}, workflowName: {eq: "payment-capture"}}) {
  id durationMs error { title } workflowInstance { id name version } } }`),
    example('JSON operators: ne, gt/gte/lt/lte (numbers numerically, other values as text), in, contains (strings), exists (false also matches a missing payload)', `{ getWorkflowInstances(filter: {input: {
  gte: [{key: "items.0.price", value: "20"}], in: [{key: "shipTo.country", values: ["BR", "PT"]}],
  exists: [{key: "giftNote", value: true}], ne: [{key: "customer.name", value: "nobody"}] }}) { id name } }`),
    example('Index freshness: the newest indexed event, the lag to now, ingestion counters', `{ indexStatus { backend newestEventTime lagSeconds rawEvents ingestErrors placeholders } }`),
  ],
};
