import { example, paragraph } from '../blocks.js';
import type { Section } from '../blocks.js';

export const ORDERING: Section = {
  id: 'ordering',
  title: 'Ordering',
  nav: 'Ordering',
  blocks: [
    paragraph(`<code>orderBy</code> keys apply in the order written, in the query text or in the variables JSON; <code>id</code> is always
the final tie-breaker, so offset pagination is stable. Nulls sort last in both directions. Text sorts by Unicode code point
(case-sensitive), status as text, times chronologically. Aliases (<code>startTime</code>, <code>enter</code>, …) sort by their field;
a field named twice counts where it first appears. Defaults: instances and <code>getTaskExecutions</code> <code>startDate DESC</code>;
the tasks of one instance chronologically.`),
    example('Name first, then newest first', `{ getWorkflowInstances(orderBy: {name: ASC, startDate: DESC}) { name startDate } }`),
    example('Order from variables (the key order of the JSON counts)', `query Sorted($o: TaskExecutionOrderByInput) { getTaskExecutions(orderBy: $o, limit: 20) { taskName status startDate } }`, {
      o: { status: 'ASC', enter: 'DESC' },
    }),
  ],
};
