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

  /**
   * The server cannot answer a field the console asked for: an older server does not know it (validation error), or
   * its backend does not implement it yet (BAD_USER_INPUT "… not supported by the <backend> backend yet"). The
   * console then uses the contract-only fallback.
   */
  /** The server stopped the query at its time limit (QUERY_TIMEOUT): the same query would time out again. */
  get timedOut(): boolean {
    return this.errors.some((e) => e.extensions?.code === 'QUERY_TIMEOUT');
  }

  get unavailable(): boolean {
    return this.errors.some(
      (e) =>
        (e.extensions?.code === 'GRAPHQL_VALIDATION_FAILED' && /Cannot query field|Unknown argument|Unknown type|is not defined by type|Unknown field/.test(e.message)) ||
        (e.extensions?.code === 'BAD_USER_INPUT' && /not supported by .*backend yet/.test(e.message)),
    );
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

/**
 * Runs `preferred` (fields newer servers have), and on a server that does not know them runs `fallback` from then
 * on. The choice is remembered per feature for the page's life.
 */
const unsupported = new Set<string>();
export async function withFallback<T>(feature: string, preferred: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
  if (unsupported.has(feature)) return fallback();
  try {
    return await preferred();
  } catch (error) {
    if (error instanceof GraphQLRequestError && error.unavailable) {
      unsupported.add(feature);
      return fallback();
    }
    throw error;
  }
}

export function supports(feature: string): boolean {
  return !unsupported.has(feature);
}
