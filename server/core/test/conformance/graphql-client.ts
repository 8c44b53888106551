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

  constructor(private readonly recorder?: QueryRecorder) {}

  attach(app: FetchingApp | null): void {
    this.app = app;
  }

  async send(query: string, variables?: Variables): Promise<GraphQLResult> {
    if (this.app === null) throw new Error('the conformance app is not set up (beforeAll failed?)');
    this.recorder?.(query, variables);
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
    return { status: response.status, data: body.data ?? null, errors: body.errors ?? [] };
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
