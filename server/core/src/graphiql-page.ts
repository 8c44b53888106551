import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/**
 * The GraphQL UI: GraphiQL with every script, style, worker and icon inlined by
 * @graphql-yoga/render-graphiql, so it works without internet access. Queries go to /graphql by POST.
 */
let rendered: string | undefined;

/** Rendered once per process: the page does not depend on configuration. */
export function renderGraphQLUi(): string {
  rendered ??= renderGraphiQL({
    title: 'Workflow Index — GraphQL',
    endpoint: '/graphql',
    method: 'POST',
    useGETForQueries: false,
    defaultQuery: DEFAULT_QUERY,
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
