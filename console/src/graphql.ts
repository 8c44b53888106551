// The console talks to /graphql like any other client: POST, JSON, no private endpoint.

export interface GraphQLErrorEntry {
  readonly message: string;
  readonly extensions?: { readonly code?: string };
}

export class GraphQLRequestError extends Error {
  override readonly name = 'GraphQLRequestError';
  constructor(
    message: string,
    readonly errors: readonly GraphQLErrorEntry[],
  ) {
    super(message);
  }

  /** The server stopped the query at its time limit (QUERY_TIMEOUT): the same query would time out again. */
  get timedOut(): boolean {
    return this.errors.some((e) => e.extensions?.code === 'QUERY_TIMEOUT');
  }
}

export async function graphql<T>(query: string, variables: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query, variables }),
    ...(signal === undefined ? {} : { signal }),
  });
  let body: { data?: T | null; errors?: GraphQLErrorEntry[] };
  try {
    body = (await response.json()) as typeof body;
  } catch {
    throw new GraphQLRequestError(`The server answered ${response.status} ${response.statusText} without a GraphQL body.`, []);
  }
  if (body.errors !== undefined && body.errors.length > 0) {
    throw new GraphQLRequestError(body.errors.map((e) => e.message).join('\n'), body.errors);
  }
  if (body.data === undefined || body.data === null) throw new GraphQLRequestError(`The server answered ${response.status} without data.`, []);
  return body.data;
}
