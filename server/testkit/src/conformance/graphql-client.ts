// GraphQL over HTTP, in process: the suite talks to the real app only through `app.fetch`, exactly as a
// client would over the network (no resolver or reader is called directly).

export interface GraphQLErrorBody {
  readonly message: string;
  readonly extensions?: Readonly<Record<string, unknown>>;
  readonly path?: readonly (string | number)[];
}

export interface GraphQLResult {
  readonly status: number;
  readonly data: Readonly<Record<string, unknown>> | null;
  readonly errors: readonly GraphQLErrorBody[];
}

export type Variables = Readonly<Record<string, unknown>>;

export interface FetchingApp {
  fetch(request: Request): Promise<Response> | Response;
}

/** Sees every request a client sends (the cross-backend test replays them against another backend). */
export type QueryRecorder = (query: string, variables: Variables | undefined) => void;

export class GraphQLClient {
  private app: FetchingApp | null = null;

  /** `executions`: how many times each request is sent (3: graphql-js, compiled, hot; 2: graphql-js, compiled). */
  constructor(private readonly recorder?: QueryRecorder, private readonly executions: 2 | 3 = 3) {}

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
    const response = await this.app.fetch(
      new Request('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
        body: JSON.stringify({ query, variables }),
      }),
    );
    const text = await response.text();
    let body: { data?: Record<string, unknown> | null; errors?: GraphQLErrorBody[] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`HTTP ${response.status}: not a JSON body: ${text.slice(0, 500)}`);
    }
    return { status: response.status, text, result: { status: response.status, data: body.data ?? null, errors: body.errors ?? [] } };
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
