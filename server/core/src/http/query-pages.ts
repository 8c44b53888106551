// The pages for people writing queries: the SDL, the GraphQL UI and /docs (development mode only). None with
// GRAPHQL_INTROSPECTION=NO_INTROSPECTION_OR_QUERY. The UI and /docs are rendered on first request: most instances
// (tests, API-only clients) never serve them.
import type { CoreConfig } from '../config.js';
import { renderDocsPage } from '../docs-page/render-docs-page.js';
import { renderGraphQLUi } from '../graphiql-page.js';
import { StaticAsset } from '../static-asset.js';
import { text } from './responses.js';
import { readRoute } from './route-table.js';
import type { Route } from './route-table.js';

export function queryPagesOn(config: CoreConfig): boolean {
  return config.graphql.introspection !== 'NO_INTROSPECTION_OR_QUERY';
}

/** Each route, or null when this configuration does not serve it. */
export function queryPages(config: CoreConfig, sdl: string): { readonly schema: Route | null; readonly ui: Route | null; readonly docs: Route | null } {
  if (!queryPagesOn(config)) return { schema: null, ui: null, docs: null };
  return {
    schema: readRoute(() => text(200, sdl)),
    ui: htmlPage(config, () => renderGraphQLUi({ consoleSession: config.auth.mode === 'oidc' && config.auth.console !== null })),
    docs: config.mode === 'development' ? htmlPage(config, () => renderDocsPage({ config, sdl })) : null,
  };
}

/** A page rendered once, on its first request, then served with its ETag and compressed variants. */
function htmlPage(config: CoreConfig, render: () => string | Promise<string>): Route {
  let asset: StaticAsset | undefined;
  return readRoute(async (request) => {
    asset ??= new StaticAsset(await render(), 'text/html; charset=utf-8');
    return asset.respond(request, config.http.compression);
  });
}
