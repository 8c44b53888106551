/**
 * The GraphQL UI: GraphiQL with every script, style, worker and icon inlined by
 * @graphql-yoga/render-graphiql, so it works without internet access. Queries go to /graphql by POST.
 */
let rendered: Promise<string> | undefined;

/**
 * Rendered once per process: the page does not depend on configuration. The renderer module is loaded on
 * first use: its inlined assets are some 30 MB of strings on the heap, which servers that never serve the UI
 * should not carry.
 */
export function renderGraphQLUi(): Promise<string> {
  rendered ??= import('@graphql-yoga/render-graphiql')
    .then(({ renderGraphiQL }) =>
      renderGraphiQL({
        title: 'Workflow Index — GraphQL',
        endpoint: '/graphql',
        method: 'POST',
        useGETForQueries: false,
        defaultQuery: DEFAULT_QUERY,
      }),
    )
    .catch((error: unknown) => {
      rendered = undefined;
      throw error;
    });
  return rendered;
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
