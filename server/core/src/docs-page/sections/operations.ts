import { example, paragraph, table } from '../blocks.js';
import type { Section } from '../blocks.js';

export const OPERATIONS: Section = {
  id: 'operations',
  title: 'Operations',
  nav: 'Operations',
  blocks: [
    paragraph(`Send <code>POST /graphql</code> with <code>Content-Type: application/json</code> and a body
<code>{"query": "…", "variables": {…}, "operationName": "…"}</code>. <code>GET /graphql</code> is refused with 405.
Try the queries below in the <a href="/q/graphql-ui">GraphQL UI</a>; in development mode they run against the demo events.`),
    table(
      ['query', 'returns'],
      [
        ['`getWorkflowInstances(limit, offset, filter, orderBy)`', 'a page of instances; default order `startDate DESC`, then `id`'],
        ['`getWorkflowInstance(id)`', 'one instance, or `null` for an unknown id'],
        ['`getTaskExecutions(limit, offset, filter, orderBy)`', 'a page of task executions; default order `startDate DESC`, then `id`'],
        ['`getTaskExecution(id)`', 'one task execution, or `null`'],
        ['`getTaskExecutionsByWorkflowInstance(workflowInstanceId)`', 'all executions of one instance, chronological; `[]` for an unknown id'],
      ],
    ),
    example('The ten newest instances with their tasks (tasks of a whole page are loaded in one batch)', `
query Recent {
  getWorkflowInstances(limit: 10) {
    id name namespace version status startDate endDate lastUpdate
    error { type title status }
    taskExecutions { id taskName taskPosition status startDate endDate errorMessage }
  }
}`),
    example('One instance with its payloads (JSON text: parse it on the client)', `
{
  getWorkflowInstance(id: "01KRDQDZBS8TBDWA72Q1575QHY") {
    name status inputData outputData
    error { type title detail status instance }
  }
}`),
    example('The executions of one instance', `
{
  getTaskExecutionsByWorkflowInstance(workflowInstanceId: "01KRDQEAPWDTERF1SDDX5A5SQV") {
    id taskPosition status startDate endDate
  }
}`),
    example('One task execution by id', `
{ getTaskExecution(id: "01KRDQDZBS8TBDWA72Q1575QHY:do/1/chargeCard") { status error { title detail } } }`),
  ],
};
