// The /docs page rendered from its section data: the navigation links only anchors the page has, the configuration
// table lists every core key, and the limits are the configured ones.
import { readFileSync } from 'node:fs';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CORE_CONFIG_KEYS } from '../src/config.js';
import { docsSections, renderDocsPage } from '../src/docs-page/render-docs-page.js';
import { loadSchemaSdl } from '../src/schema-sdl.js';
import { testConfig } from '@workflow-index/testkit';

const sdl = loadSchemaSdl();

describe('/docs page', () => {
  it('links in its navigation bar exactly the sections that have a label, then the schema reference and the UI', () => {
    const config = testConfig();
    const html = renderDocsPage({ config, sdl });
    const nav = /<nav>(.*?)<\/nav>/.exec(html)?.[1] ?? '';
    const hrefs = [...nav.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    const labelled = docsSections(config).filter((s) => s.nav !== undefined);
    expect(hrefs).toEqual([...labelled.map((s) => `#${s.id}`), '#reference', '/q/graphql-ui']);
    for (const href of hrefs.filter((h) => h?.startsWith('#'))) expect(html).toContain(`id="${href?.slice(1)}"`);
  });

  it('has a configuration row per core key and states the limits as configured', () => {
    const config = testConfig({ GRAPHQL_MAX_LIMIT: '777', GRAPHQL_DEFAULT_LIMIT: '33', HTTP_MAX_REQUESTS_PER_CLIENT: '5' });
    const html = renderDocsPage({ config, sdl });
    const configuration = html.slice(html.indexOf('<h2 id="configuration">'), html.indexOf('<h2 id="reference">'));
    expect(configuration.match(/<tr><td><code>/g)).toHaveLength(CORE_CONFIG_KEYS.length);
    expect(html).toContain('<code>limit</code> (default 33, at most 777)');
    expect(html).toContain('<code>limit must be between 0 and 777, got 5000</code>');
    expect(html).toContain('<tr><td><code>TOO_MANY_REQUESTS</code></td><td>The client already has 5 requests in flight');
  });

  it('offers every example in the GraphQL UI with its query', () => {
    const html = renderDocsPage({ config: testConfig(), sdl });
    const queries = [...html.matchAll(/<div class="example"><div class="ex-title">.*?<\/div><pre>(.*?)<\/pre>/gs)].length;
    const links = [...html.matchAll(/<a class="run-in-ui" href="\/q\/graphql-ui\?query=[^"]+">run in the UI<\/a>/g)].length;
    expect(queries).toBeGreaterThan(30);
    expect(links).toBe(queries);
  });
});

describe('examples as the GraphQL UI sees them', () => {
  // The UI's editor validates query text against the schema, without the server's shorthand expansion: an example
  // that leans on shorthand would be marked as an error there although the server runs it.
  const schema = buildSchema(sdl);
  const problems = (query: string): string[] => validate(schema, parse(query)).map((e) => e.message);

  it('every /docs example validates as written, except the one that shows shorthand in query text', () => {
    const examples = docsSections(testConfig()).flatMap((s) => s.blocks.filter((b) => b.kind === 'example').map((b) => ({ section: s.id, query: b.query })));
    expect(examples.length).toBeGreaterThan(30);
    const flagged = examples.filter((e) => problems(e.query).length > 0);
    expect(flagged.map((e) => e.section)).toEqual(['shorthand']);
  });

  it('every README example validates as written', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    expect(blocks.length).toBeGreaterThan(4);
    expect(blocks.map(problems)).toEqual(blocks.map(() => []));
  });
});
