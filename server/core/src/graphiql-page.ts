/**
 * The GraphQL UI: GraphiQL with every script, style, worker and icon served from this server
 * (@graphql-yoga/render-graphiql), so it works without internet access, split into a small page and hashed files
 * (graphiql-assets.ts). Queries go to /graphql by POST. When the console signs people in, the page uses the
 * console's session (graphiql-session.ts).
 */
import { splitInlinedAssets } from './graphiql-assets.js';
import type { SplitPage } from './graphiql-assets.js';
import { GRAPHIQL_SESSION_SCRIPT } from './graphiql-session.js';

const rendered = new Map<boolean, Promise<SplitPage>>();

/**
 * Rendered once per process and variant: with `consoleSession` the page carries the script that sends the console's
 * token. The renderer module is loaded on first use: its inlined assets are some 30 MB of strings on the heap, which
 * servers that never serve the UI should not carry.
 */
export function renderGraphQLUi(options: { readonly consoleSession?: boolean } = {}): Promise<SplitPage> {
  const consoleSession = options.consoleSession === true;
  const page = rendered.get(consoleSession) ?? render(consoleSession);
  rendered.set(consoleSession, page);
  return page;
}

function render(consoleSession: boolean): Promise<SplitPage> {
  return import('@graphql-yoga/render-graphiql')
    .then(({ renderGraphiQL }) =>
      renderGraphiQL({
        title: 'Workflow Index — GraphQL',
        endpoint: '/graphql',
        method: 'POST',
        useGETForQueries: false,
        defaultQuery: DEFAULT_QUERY,
      }),
    )
    .then((html) => splitInlinedAssets(html))
    .then((split) => (consoleSession ? { ...split, html: split.html.replace('<div id="root"></div>', `<div id="root"></div>\n      <script>${GRAPHIQL_SESSION_SCRIPT}</script>`) } : split))
    .catch((error: unknown) => {
      rendered.delete(consoleSession);
      throw error;
    });
}

const DEFAULT_QUERY = `# Workflow Index: read-only queries over workflow execution history.
# Documentation: /docs (development mode). Press the run button or Ctrl-Enter.
query RecentInstances {
  getWorkflowInstances(limit: 10, orderBy: {startDate: DESC}) {
    id
    name
    namespace
    status
    startDate
    endDate
    taskExecutions {
      taskPosition
      status
    }
  }
}
`;
