// A connection that logs every statement's plan, nested ones (the trigger's, rebuild_normalized()'s) included, as
// notices: auto_explain loaded for the session, with the caller's extra settings. The plans arrive in `plans`.
import pg from 'pg';

export interface ExplainingClient {
  readonly client: pg.Client;
  /** The plan notices received so far (empty it between steps). */
  readonly plans: string[];
}

export async function explainingClient(url: string, settings: string): Promise<ExplainingClient> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const plans: string[] = [];
  client.on('notice', (n) => {
    if (n.message?.includes('plan:')) plans.push(n.message);
  });
  await client.query(`LOAD 'auto_explain'`);
  await client.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; ${settings}`);
  return { client, plans };
}
