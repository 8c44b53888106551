import type { CoreConfig } from '../../config.js';
import { example, paragraph } from '../blocks.js';
import type { Section } from '../blocks.js';

/** The limits as configured (GRAPHQL_DEFAULT_LIMIT, GRAPHQL_MAX_LIMIT). */
export function pagination(graphql: CoreConfig['graphql']): Section {
  return {
    id: 'pagination',
    title: 'Pagination',
    nav: 'Pagination',
    blocks: [
      paragraph(`<code>limit</code> (default ${graphql.defaultLimit}, at most ${graphql.maxLimit}) and <code>offset</code> (default 0):
<code>limit: 20, offset: 40</code> returns results 41–60. <code>limit: 0</code> returns <code>[]</code>.
A negative or too large limit or a negative offset is a BAD_USER_INPUT error naming the bound,
e.g. <code>limit must be between 0 and ${graphql.maxLimit}, got 5000</code>.`),
      example('The second page of five', `{ getWorkflowInstances(limit: 5, offset: 5) { id name } }`),
    ],
  };
}
