// GraphQL over HTTP, in process: the suite talks to the real app only through `app.fetch`, exactly as a
// client would over the network (no resolver or reader is called directly).
import { type GraphQLErrorBody, postGraphQL, type Variables } from '../graphql-request.js';

export interface GraphQLResult {
  readonly status: number;
  readonly data: Readonly<Record<string, unknown>> | null;
  readonly errors: readonly GraphQLErrorBody[];
}

export interface FetchingApp {
  fetch(request: Request): Promise<Response> | Response;
}

/** Sees every request a client sends (the cross-backend test replays them against another backend). */
export type QueryRecorder = (query: string, variables: Variables | undefined) => void;

export class GraphQLClient {
  private app: FetchingApp | null = null;

  /**
   * `executions`: how many times each request is sent (3: graphql-js, compiled, hot; 2: graphql-js, compiled).
   * `headers`: sent with every request, e.g. `{ authorization: 'Bearer …' }` for an app with AUTH_MODE=oidc.
   */
  constructor(
    private readonly recorder?: QueryRecorder,
    private readonly executions: 2 | 3 = 3,
    private headers: Readonly<Record<string, string>> = {},
  ) {}

  /** Replaces the headers sent with every later request. */
  setHeaders(headers: Readonly<Record<string, string>>): void {
    this.headers = headers;
  }

  attach(app: FetchingApp | null): void {
    this.app = app;
  }

  async send(query: string, variables?: Variables): Promise<GraphQLResult> {
    this.recorder?.(query, variables);
    const first = await this.post(query, variables);
    // Every request three times: a document's first execution runs on graphql-js, its second compiled by
    // graphql-jit when its variables allow (server/core/src/compiled-execution.ts), and once that answered without
    // errors its third is a hot request, answered without yoga (hot-operations.ts); the answers must be the same bytes.
    const later = [await this.post(query, variables)];
    if (this.executions === 3) later.push(await this.post(query, variables));
    // lagSeconds is measured on the server clock at each request.
    if (query.includes('lagSeconds')) return first.result;
    for (const [i, next] of later.entries()) {
      if (next.status !== first.status || next.text !== first.text) {
        throw new Error(`execution ${i + 2} answered differently (${i === 0 ? 'compiled execution' : 'a hot request'}?)\n${query}\nvariables: ${JSON.stringify(variables)}\nfirst (HTTP ${first.status}): ${first.text.slice(0, 2000)}\nexecution ${i + 2} (HTTP ${next.status}): ${next.text.slice(0, 2000)}`);
      }
    }
    return first.result;
  }

  private async post(query: string, variables: Variables | undefined): Promise<{ status: number; text: string; result: GraphQLResult }> {
    if (this.app === null) throw new Error('the conformance app is not set up (beforeAll failed?)');
    const { status, text, body } = await postGraphQL(this.app, query, variables, { accept: 'application/graphql-response+json, application/json', ...this.headers });
    return { status, text, result: { status, data: body.data ?? null, errors: body.errors ?? [] } };
  }

  /** The data of a query that must succeed; fails with the server's errors otherwise. */
  async data(query: string, variables?: Variables): Promise<Readonly<Record<string, unknown>>> {
    const result = await this.send(query, variables);
    if (result.errors.length > 0 || result.data === null) {
      throw new Error(`query failed (HTTP ${result.status}): ${JSON.stringify(result.errors)}\n${query}\nvariables: ${JSON.stringify(variables)}`);
    }
    return result.data;
  }

  /** The errors of a query that must fail. */
  async errors(query: string, variables?: Variables): Promise<readonly GraphQLErrorBody[]> {
    const result = await this.send(query, variables);
    if (result.errors.length === 0) {
      throw new Error(`query was expected to fail but answered ${JSON.stringify(result.data)}\n${query}`);
    }
    return result.errors;
  }
}
