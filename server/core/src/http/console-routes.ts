// The web console: its page at / and /q/console, its hashed files under /q/console/assets/. The console is a client
// of /graphql: off with CONSOLE_ENABLED=false, and with the query pages (it runs queries). Its files are read on
// first use and kept once found, so a server started before `npm run build` picks the build up.
import type { CoreConfig } from '../config.js';
import { CONSOLE_ASSETS_PREFIX, CONSOLE_DIST_DIR, consoleNotBuilt, loadConsoleAssets } from '../console-assets.js';
import type { ConsoleAssets } from '../console-assets.js';
import { consoleSignInOf } from '../console-sign-in.js';
import { queryPagesOn } from './query-pages.js';
import { readRoute } from './route-table.js';
import type { PrefixRoutes, Route } from './route-table.js';

/** The page's route and the assets' prefix, or nulls when the console is off. */
export function consoleRoutes(config: CoreConfig): { readonly page: Route | null; readonly assets: PrefixRoutes | null } {
  if (!config.console.enabled || !queryPagesOn(config)) return { page: null, assets: null };
  const compression = config.http.compression;
  let found: ConsoleAssets | null = null;
  const signIn = consoleSignInOf(config.auth);
  const files = (): ConsoleAssets | null => (found ??= loadConsoleAssets(CONSOLE_DIST_DIR, signIn));
  const page = readRoute((request) => {
    const assets = files();
    return assets === null ? consoleNotBuilt() : assets.page.respond(request, compression);
  });
  const assets: PrefixRoutes = {
    prefix: CONSOLE_ASSETS_PREFIX,
    route(name) {
      const file = files()?.files.get(name);
      return file === undefined ? undefined : readRoute((request) => file.respond(request, compression));
    },
  };
  return { page, assets };
}
