// How the server serves the console (no browser): routes, caching headers, CSP, the settings that turn it off,
// and ETag revalidation of the GraphQL UI page.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, loadConsoleAssets } from '@workflow-index/core';
import { testApp } from '@workflow-index/testkit';
import { buildConsole } from './support/build-console.js';

const get = (app: ReturnType<typeof testApp>['app'], path: string, headers: Record<string, string> = {}): Promise<Response> =>
  app.fetch(new Request(`http://localhost${path}`, { headers }));

beforeAll(buildConsole, 180_000);

describe('console serving', () => {
  it('serves index.html at / and /q/console: no-cache, a strict CSP, scripts only from /q/console/assets', async () => {
    const { app } = testApp();
    for (const path of ['/', '/q/console', '/q/console/']) {
      const response = await get(app, path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await response.text();
      expect(html).toMatch(/<script type="module" crossorigin src="\/q\/console\/assets\/index-[\w-]+\.js"><\/script>/);
      // Offline: nothing is loaded from another host, and there is no inline script for the CSP to block.
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
    await app.dispose();
  });

  it('serves the hashed assets immutable for a year with their types; unknown names are 404', async () => {
    const { app } = testApp();
    const html = await (await get(app, '/')).text();
    const paths = [...html.matchAll(/(?:src|href)="(\/q\/console\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(paths.some((p) => p.endsWith('.js'))).toBe(true);
    expect(paths.some((p) => p.endsWith('.css'))).toBe(true);
    for (const path of paths) {
      const response = await get(app, path, { 'accept-encoding': 'br' });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-type')).toBe(path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(response.headers.get('content-encoding')).toBe('br');
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await get(app, '/q/console/assets/index-00000000.js')).status).toBe(404);
    expect((await get(app, '/q/console/assets/../../graphql')).status).toBe(404);
    expect((await app.fetch(new Request('http://localhost/q/console', { method: 'POST', body: 'x' }))).status).toBe(405);
    await app.dispose();
  });

  it('revalidates by ETag: 304 without a body for the console page, an asset and the 9 MB GraphQL UI page', async () => {
    const { app } = testApp();
    const html = await (await get(app, '/')).text();
    const asset = /src="(\/q\/console\/assets\/[^"]+)"/.exec(html)?.[1] as string;
    for (const path of ['/', asset, '/q/graphql-ui']) {
      const first = await get(app, path, { 'accept-encoding': 'gzip' });
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[\w-]{27}"$/);
      const again = await get(app, path, { 'accept-encoding': 'gzip', 'if-none-match': `W/"other", ${etag}` });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect((await get(app, path, { 'if-none-match': '"something-else"' })).status).toBe(200);
    }
    const ui = await get(app, '/q/graphql-ui');
    expect(ui.headers.get('cache-control')).toBe('no-cache');
    await app.dispose();
  }, 60_000);

  it('CONSOLE_ENABLED=false and GRAPHQL_INTROSPECTION=NO_INTROSPECTION_OR_QUERY turn it off (404, as before it existed)', async () => {
    const offSettings: Record<string, string>[] = [{ CONSOLE_ENABLED: 'false' }, { GRAPHQL_INTROSPECTION: 'NO_INTROSPECTION_OR_QUERY' }];
    for (const env of offSettings) {
      const { app } = testApp({ env });
      for (const path of ['/', '/q/console']) expect((await get(app, path)).status).toBe(404);
      const html = await (await get(testApp().app, '/')).text();
      const asset = /src="(\/q\/console\/assets\/[^"]+)"/.exec(html)?.[1] as string;
      expect((await get(app, asset)).status).toBe(404);
      await app.dispose();
    }
    const { app } = testApp({ env: { GRAPHQL_INTROSPECTION: 'NO_INTROSPECTION' } });
    expect((await get(app, '/')).status).toBe(200);
    await app.dispose();
  });

  it('a folder without a build gives null (the server then answers 503 saying to run npm run build)', () => {
    const empty = mkdtempSync(join(tmpdir(), 'wi-console-'));
    try {
      expect(loadConsoleAssets(empty)).toBeNull();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('/docs links its examples to the GraphQL UI', () => {
  it('every example has a "run in the UI" link whose ?query= is exactly the example and parses', async () => {
    const { app } = testApp({ env: { NODE_ENV: 'development' } });
    const html = await (await get(app, '/docs')).text();
    const examples = [...html.matchAll(/<div class="example">.*?<pre>([\s\S]*?)<\/pre>[\s\S]*?<a class="run-in-ui" href="([^"]+)">run in the UI<\/a>/g)];
    expect(examples.length).toBe((html.match(/<div class="example">/g) ?? []).length);
    expect(examples.length).toBeGreaterThan(10);
    const unescape = (text: string): string => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    for (const [, pre, href] of examples) {
      const url = new URL(unescape(href as string), 'http://localhost');
      expect(url.pathname).toBe('/q/graphql-ui');
      const query = url.searchParams.get('query') ?? '';
      expect(query).toBe(unescape(pre as string));
      expect(() => parse(query)).not.toThrow();
    }
    await app.dispose();
  });
});
