import { example, paragraph } from '../blocks.js';
import type { Section } from '../blocks.js';

export const SHORTHAND: Section = {
  id: 'shorthand',
  title: 'Shorthand',
  nav: 'Shorthand',
  blocks: [
    paragraph(`A bare value means <code>{eq: value}</code> on every field whose filter has a single-value <code>eq</code>
(text, status, time and integer fields, including the fields inside <code>error</code>; not the JSON fields).
It works in query text and in variables, at any depth of <code>and</code>/<code>or</code>/<code>not</code>; introspection still shows the typed inputs.
The server expands it before validation; an editor that validates against the schema itself (the GraphQL UI, IDE
plugins, code generators) marks shorthand in query text as an error, so the other examples here write
<code>{eq: …}</code>. In variables no editor sees it.`),
    example('In the query text', `{ getWorkflowInstances(filter: {name: "order-intake", namespace: "com.acme.orders", status: COMPLETED}) { id } }`),
    example('In variables', `query Find($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id name status } }`, {
      f: { status: 'FAULTED', or: [{ namespace: 'com.acme.billing' }, { name: 'address-normalizer' }] },
    }),
  ],
};
