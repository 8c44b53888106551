// The pages for people writing queries: the SDL, the GraphQL UI and /docs (development mode only). None with
// GRAPHQL_INTROSPECTION=NO_INTROSPECTION_OR_QUERY. The UI and /docs are rendered on first request: most instances
// (tests, API-only clients) never serve them.
import type { CoreConfig } from '../config.js';
import { renderDocsPage } from '../docs-page/render-docs-page.js';
import { GRAPHQL_UI_ASSETS_PREFIX } from '../graphiql-assets.js';
import { renderGraphQLUi } from '../graphiql-page.js';
import { IMMUTABLE, StaticAsset } from '../static-asset.js';
import { text } from './responses.js';
import { readRoute } from './route-table.js';
import type { PrefixRoutes, Route } from './route-table.js';

export function queryPagesOn(config: CoreConfig): boolean {
  return config.graphql.introspection !== 'NO_INTROSPECTION_OR_QUERY';
}

/** Each route, or null when this configuration does not serve it. */
export function queryPages(config: CoreConfig, sdl: string): QueryPages {
  if (!queryPagesOn(config)) return { schema: null, ui: null, uiAssets: null, docs: null };
  const ui = graphQLUi(config);
  return {
    schema: readRoute(() => text(200, sdl)),
    ui: ui.page,
    uiAssets: ui.assets,
    docs: config.mode === 'development' ? htmlPage(config, () => renderDocsPage({ config, sdl })) : null,
  };
}

interface QueryPages {
  readonly schema: Route | null;
  readonly ui: Route | null;
  /** The UI's hashed files. */
  readonly uiAssets: PrefixRoutes | null;
  readonly docs: Route | null;
}

/** The UI page (no-cache, revalidated by ETag) and its files under the assets prefix (immutable). */
function graphQLUi(config: CoreConfig): { readonly page: Route; readonly assets: PrefixRoutes } {
  const split = () => renderGraphQLUi({ consoleSession: config.auth.mode === 'oidc' && config.auth.console !== null });
  const files = new Map<string, StaticAsset>();
  const page = htmlPage(config, async () => (await split()).html);
  const assets: PrefixRoutes = {
    prefix: GRAPHQL_UI_ASSETS_PREFIX,
    route: (name) => readRoute(async (request) => {
      const file = (await split()).files.get(name);
      if (file === undefined) return text(404, `No such file: ${GRAPHQL_UI_ASSETS_PREFIX}${name}\n`);
      let asset = files.get(name);
      if (asset === undefined) {
        asset = new StaticAsset(file.content, file.contentType, { cacheControl: IMMUTABLE, headers: { 'X-Content-Type-Options': 'nosniff' } });
        files.set(name, asset);
      }
      return asset.respond(request, config.http.compression);
    }),
  };
  return { page, assets };
}

/** A page rendered once, on its first request, then served with its ETag and compressed variants. */
function htmlPage(config: CoreConfig, render: () => string | Promise<string>): Route {
  let asset: StaticAsset | undefined;
  return readRoute(async (request) => {
    asset ??= new StaticAsset(await render(), 'text/html; charset=utf-8');
    return asset.respond(request, config.http.compression);
  });
}
