// The console talks to /graphql like any other client: POST, JSON, no private endpoint. With sign-in (AUTH_MODE=oidc)
// every request carries the session's bearer token; without a live session, or when the server refuses the token
// (401), no data is asked for and the browser goes to sign in again.
import { signInAgain } from './oidc-client.ts';
import { readSession } from './session.ts';
import { signInSettings } from './sign-in-settings.ts';

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

const SIGNING_IN = 'Your session has ended: signing in again…';

export async function graphql<T>(query: string, variables: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
  const settings = signInSettings();
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/graphql-response+json, application/json' };
  if (settings.mode === 'oidc') {
    const session = readSession();
    if (session === null) {
      void signInAgain(settings);
      throw new GraphQLRequestError(SIGNING_IN, []);
    }
    headers['Authorization'] = `Bearer ${session.accessToken}`;
  }
  const response = await fetch('/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables }),
    ...(signal === undefined ? {} : { signal }),
  });
  if (response.status === 401 && settings.mode === 'oidc') {
    void signInAgain(settings);
    throw new GraphQLRequestError(SIGNING_IN, []);
  }
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
