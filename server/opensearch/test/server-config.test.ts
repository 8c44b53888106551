// The OpenSearch server's configuration: CONTRACT §4 keys, mode defaults, every problem reported at once (never a
// password), and the two flags.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@workflow-index/core';
import { loadOpenSearchServerConfig, parseOpenSearchServerFlags } from '../src/opensearch-server-config.js';

function problemsOf(env: Record<string, string>, argv: string[] = []): string[] {
  const { flags, problems } = parseOpenSearchServerFlags(argv);
  try {
    loadOpenSearchServerConfig(env, flags, problems);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('OpenSearch server configuration', () => {
  it('reads the connection of CONTRACT §4 with its defaults', () => {
    const config = loadOpenSearchServerConfig({ NODE_ENV: 'production', OPENSEARCH_HOST: 'os.example.svc' });
    expect(config.opensearch.connection).toEqual({ node: 'http://os.example.svc:9200', nodes: ['http://os.example.svc:9200'], username: undefined, password: undefined, caFile: undefined });
    expect(config.opensearch.schemaInit).toBe(false);
    expect(config.opensearch.queryTimeoutMs).toBe(10_000);
    expect(config.opensearch.indexPrefix).toBe('');
    expect(config.core.mode).toBe('production');
  });

  it('creates the indices at start in development only, and never with SCHEMA_INIT_ENABLED=false', () => {
    expect(loadOpenSearchServerConfig({ NODE_ENV: 'development', OPENSEARCH_HOST: 'h' }).opensearch.schemaInit).toBe(true);
    expect(loadOpenSearchServerConfig({ NODE_ENV: 'production', OPENSEARCH_HOST: 'h', OPENSEARCH_SCHEMA_INIT: 'true' }).opensearch.schemaInit).toBe(true);
    expect(loadOpenSearchServerConfig({ NODE_ENV: 'development', OPENSEARCH_HOST: 'h', SCHEMA_INIT_ENABLED: 'false' }).opensearch.schemaInit).toBe(false);
  });

  it('https with a readable CA bundle and credentials', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-os-config-'));
    try {
      const ca = join(dir, 'ca.pem');
      writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
      const config = loadOpenSearchServerConfig({ NODE_ENV: 'production', OPENSEARCH_HOST: 'os', OPENSEARCH_PORT: '443', OPENSEARCH_PROTOCOL: 'HTTPS', OPENSEARCH_CA_FILE: ca, OPENSEARCH_USERNAME: 'reader', OPENSEARCH_PASSWORD: 'pw' });
      expect(config.opensearch.connection).toEqual({ node: 'https://os:443', nodes: ['https://os:443'], username: 'reader', password: 'pw', caFile: ca });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists every problem at once, without the password', () => {
    const problems = problemsOf(
      { NODE_ENV: 'production', OPENSEARCH_PORT: '70000', OPENSEARCH_PROTOCOL: 'https', OPENSEARCH_CA_FILE: '/nonexistent/ca.pem', OPENSEARCH_PASSWORD: 'very-secret', OPENSEARCH_QUERY_TIMEOUT_MS: '0', WI_OPENSEARCH_INDEX_PREFIX: 'Upper-', GRAPHQL_MAX_DEPTH: 'deep' },
      ['--bogus'],
    );
    const text = problems.join('\n');
    for (const expected of [/--bogus/, /OPENSEARCH_HOST is required/, /OPENSEARCH_PORT must be a port number/, /OPENSEARCH_PASSWORD is set without OPENSEARCH_USERNAME/, /OPENSEARCH_QUERY_TIMEOUT_MS/, /WI_OPENSEARCH_INDEX_PREFIX must be lower case/, /GRAPHQL_MAX_DEPTH/]) {
      expect(text).toMatch(expected);
    }
    expect(text).not.toContain('very-secret');
  });

  it('OPENSEARCH_HOST may list several nodes of one cluster, each with or without its port', () => {
    const config = loadOpenSearchServerConfig({ NODE_ENV: 'production', OPENSEARCH_HOST: 'os-0, os-1:9201,[::1]', OPENSEARCH_PORT: '9300', OPENSEARCH_PROTOCOL: 'https' });
    expect(config.opensearch.connection.nodes).toEqual(['https://os-0:9300', 'https://os-1:9201', 'https://[::1]:9300']);
    expect(config.opensearch.connection.node).toBe('https://os-0:9300');
    const text = problemsOf({ NODE_ENV: 'production', OPENSEARCH_HOST: 'ok,os 1,os-2:0,http://os-3,' }).join('\n');
    for (const bad of ['"os 1"', '"os-2:0"', '"http://os-3"', '""']) expect(text).toContain(`got ${bad} in`);
    expect(text).not.toContain('got "ok"');
  });

  it('an unreadable CA bundle is a configuration problem, not a crash at start', () => {
    expect(problemsOf({ NODE_ENV: 'production', OPENSEARCH_HOST: 'os', OPENSEARCH_PROTOCOL: 'https', OPENSEARCH_CA_FILE: '/nonexistent/ca.pem' }).join('\n'))
      .toMatch(/OPENSEARCH_CA_FILE "\/nonexistent\/ca.pem" cannot be read/);
  });

  it('flags: --port overrides HTTP_PORT, --help is recognised', () => {
    const { flags, problems } = parseOpenSearchServerFlags(['--port', '0', '--help']);
    expect(problems).toEqual([]);
    expect(flags.help).toBe(true);
    expect(loadOpenSearchServerConfig({ NODE_ENV: 'production', OPENSEARCH_HOST: 'h', HTTP_PORT: '9000' }, flags).core.http.port).toBe(0);
  });
});
