// The web console's built files (console/dist, made by `npm run build`): read once at startup, served from memory.
// index.html is answered at / and /q/console with no-cache (it names the current asset hashes) and a strict CSP;
// the hashed files under /q/console/assets/ are immutable for a year, since a new build gives them new names.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleCspOf, withSignInMeta } from './console-sign-in.js';
import type { ConsoleSignIn } from './console-sign-in.js';
import { IMMUTABLE, StaticAsset } from './static-asset.js';

/** Same path from server/core/src (tests, tsx) and server/core/dist (the build). */
export const CONSOLE_DIST_DIR = fileURLToPath(new URL('../../../console/dist/', import.meta.url));
export const CONSOLE_PATH = '/q/console';
export const CONSOLE_ASSETS_PREFIX = `${CONSOLE_PATH}/assets/`;

/**
 * Scripts and styles only from this origin (no inline script, no CDN); data only from this origin's /graphql;
 * no framing, no plugins, no form posts elsewhere. With AUTH_MODE=oidc the issuer's origin is added to connect-src
 * (console-sign-in.ts).
 */
export const CONSOLE_CSP = consoleCspOf({ mode: 'none' });

function pageHeaders(signIn: ConsoleSignIn): Record<string, string> {
  return {
    'Content-Security-Policy': consoleCspOf(signIn),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

export interface ConsoleAssets {
  /** index.html: no-cache (revalidated by ETag), CSP. */
  readonly page: StaticAsset;
  /** File name under /q/console/assets/ → its asset. */
  readonly files: ReadonlyMap<string, StaticAsset>;
}

/**
 * Reads console/dist, or returns null when it has not been built (the server then explains how to build it).
 * `signIn` goes into index.html and its CSP (its ETag follows, so a changed setting is never served from a cache).
 */
export function loadConsoleAssets(dir: string = CONSOLE_DIST_DIR, signIn: ConsoleSignIn = { mode: 'none' }): ConsoleAssets | null {
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const html = withSignInMeta(readFileSync(indexFile, 'utf8'), signIn);
  const page = new StaticAsset(html, 'text/html; charset=utf-8', { cacheControl: 'no-cache', headers: pageHeaders(signIn) });
  const files = new Map<string, StaticAsset>();
  const assetsDir = join(dir, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) {
      const type = TYPES[extname(name)] ?? 'application/octet-stream';
      files.set(name, new StaticAsset(readFileSync(join(assetsDir, name)), type, { cacheControl: IMMUTABLE, headers: { 'X-Content-Type-Options': 'nosniff' } }));
    }
  }
  return { page, files };
}

export function consoleNotBuilt(): Response {
  return new Response('The console has not been built: run `npm run build` (it writes console/dist), then restart the server.\n', {
    status: 503,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  });
}
