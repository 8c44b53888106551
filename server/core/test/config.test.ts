import { describe, expect, it } from 'vitest';
import { CORE_CONFIG_KEYS, ConfigError, ConfigReader, collectConfig, defaultCoreConfig, loadCoreConfig } from '../src/config.js';

describe('loadCoreConfig', () => {
  it('production defaults (NODE_ENV unset)', () => {
    expect(loadCoreConfig({})).toEqual({
      mode: 'production',
      http: {
        host: null,
        port: 8080,
        httpsPort: 8443,
        tlsCertFile: null,
        tlsKeyFile: null,
        compression: true,
        maxBodyBytes: 1_048_576,
        shutdownTimeoutMs: 10_000,
        maxRequestsPerClient: 8,
        clientAddressHeader: null,
        headersTimeoutMs: 5000,
        bodyTimeoutMs: 10_000,
        processes: 1,
      },
      graphql: {
        introspection: 'DEFAULT',
        maxDepth: 15,
        maxAliases: 30,
        maxTokens: 5000,
        maxDirectives: 50,
        defaultLimit: 100,
        maxLimit: 1000,
        maxCost: 20_000,
        maxCostInFlight: 30_000,
        costQueueTimeoutMs: 10_000,
        costTasksPerInstance: 10,
        maxFilterDepth: 32,
        maxFilterConditions: 100,
        maxFilterInValues: 10_000,
        maxConcurrentReads: 4,
        countExactLimit: 10_000,
        compiledExecution: true,
        exportPageSize: 500,
        maxSubscriptions: 1000,
        maxSubscriptionsPerClient: 16,
        subscriptionHeartbeatMs: 10_000,
      },
      cors: { enabled: false, origins: [] },
      log: { level: 'info', format: 'json' },
      health: { backendTimeoutMs: 1000, diskPath: '/', diskMinFreeBytes: 52_428_800 },
      metrics: { backendTimeoutMs: 2000 },
      auth: { mode: 'none' },
      console: { enabled: true },
    });
  });

  it('development defaults: CORS on for http://localhost:3000, pretty logs, loopback only', () => {
    const config = defaultCoreConfig('development');
    expect(config.mode).toBe('development');
    expect(config.http.host).toBe('127.0.0.1');
    expect(loadCoreConfig({ NODE_ENV: 'development', HTTP_HOST: '0.0.0.0' }).http.host).toBe('0.0.0.0');
    expect(defaultCoreConfig('production').http.host).toBeNull();
    expect(config.cors).toEqual({ enabled: true, origins: ['http://localhost:3000'] });
    expect(config.log).toEqual({ level: 'info', format: 'pretty' });
    expect(defaultCoreConfig('production')).toEqual(loadCoreConfig({ NODE_ENV: 'production' }));
  });

  it('NODE_ENV=test counts as production', () => {
    expect(loadCoreConfig({ NODE_ENV: 'test' }).mode).toBe('production');
  });

  it('reads every key', () => {
    const config = loadCoreConfig({
      NODE_ENV: 'development',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '9080',
      HTTPS_PORT: '9443',
      HTTP_COMPRESSION: 'false',
      HTTP_MAX_BODY_BYTES: '4096',
      HTTP_SHUTDOWN_TIMEOUT_MS: '500',
      GRAPHQL_INTROSPECTION: 'no_introspection_or_query',
      GRAPHQL_MAX_DEPTH: '8',
      GRAPHQL_MAX_ALIASES: '3',
      GRAPHQL_MAX_TOKENS: '900',
      GRAPHQL_MAX_DIRECTIVES: '4',
      GRAPHQL_DEFAULT_LIMIT: '10',
      GRAPHQL_MAX_LIMIT: '20',
      GRAPHQL_MAX_COST: '500',
      GRAPHQL_MAX_COST_IN_FLIGHT: '700',
      GRAPHQL_COST_QUEUE_TIMEOUT_MS: '250',
      GRAPHQL_COST_TASKS_PER_INSTANCE: '0',
      GRAPHQL_MAX_FILTER_DEPTH: '5',
      GRAPHQL_MAX_CONCURRENT_READS: '2',
      COUNT_EXACT_LIMIT: '50',
      GRAPHQL_COMPILED_EXECUTION: 'false',
      EXPORT_PAGE_SIZE: '15',
      HTTP_MAX_REQUESTS_PER_CLIENT: '0',
      HTTP_CLIENT_ADDRESS_HEADER: 'X-Forwarded-For',
      HTTP_HEADERS_TIMEOUT_MS: '800',
      HTTP_BODY_TIMEOUT_MS: '2500',
      SERVER_PROCESSES: '3',
      CORS_ENABLED: 'yes',
      CORS_ORIGINS: 'https://a.example, http://localhost:5173',
      LOG_LEVEL: 'DEBUG',
      LOG_FORMAT: 'json',
      HEALTH_BACKEND_TIMEOUT_MS: '250',
      HEALTH_DISK_PATH: '/tmp',
      HEALTH_DISK_MIN_FREE_BYTES: '0',
      METRICS_BACKEND_TIMEOUT_MS: '750',
      CONSOLE_ENABLED: 'false',
    });
    expect(config).toEqual({
      mode: 'development',
      http: {
        host: '127.0.0.1',
        port: 9080,
        httpsPort: 9443,
        tlsCertFile: null,
        tlsKeyFile: null,
        compression: false,
        maxBodyBytes: 4096,
        shutdownTimeoutMs: 500,
        maxRequestsPerClient: 0,
        clientAddressHeader: 'x-forwarded-for',
        headersTimeoutMs: 800,
        bodyTimeoutMs: 2500,
        processes: 3,
      },
      graphql: {
        introspection: 'NO_INTROSPECTION_OR_QUERY',
        maxDepth: 8,
        maxAliases: 3,
        maxTokens: 900,
        maxDirectives: 4,
        defaultLimit: 10,
        maxLimit: 20,
        maxCost: 500,
        maxCostInFlight: 700,
        costQueueTimeoutMs: 250,
        costTasksPerInstance: 0,
        maxFilterDepth: 5,
        maxFilterConditions: 100,
        maxFilterInValues: 10_000,
        maxConcurrentReads: 2,
        countExactLimit: 50,
        compiledExecution: false,
        exportPageSize: 15,
        maxSubscriptions: 1000,
        maxSubscriptionsPerClient: 16,
        subscriptionHeartbeatMs: 10_000,
      },
      cors: { enabled: true, origins: ['https://a.example', 'http://localhost:5173'] },
      log: { level: 'debug', format: 'json' },
      health: { backendTimeoutMs: 250, diskPath: '/tmp', diskMinFreeBytes: 0 },
      metrics: { backendTimeoutMs: 750 },
      auth: { mode: 'none' },
      console: { enabled: false },
    });
  });

  it('overrides (flags) win over the environment; empty values count as unset', () => {
    const config = loadCoreConfig({ HTTP_PORT: '9000', GRAPHQL_MAX_DEPTH: '' }, { HTTP_PORT: '9100' });
    expect(config.http.port).toBe(9100);
    expect(config.graphql.maxDepth).toBe(15);
  });

  it('is deeply frozen', () => {
    const config = loadCoreConfig({ NODE_ENV: 'development' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.http)).toBe(true);
    expect(Object.isFrozen(config.cors.origins)).toBe(true);
  });

  it('reports every problem at once', () => {
    let error: unknown;
    try {
      loadCoreConfig({
        NODE_ENV: 'staging',
        HTTP_PORT: 'eighty',
        HTTPS_PORT: '70000',
        TLS_CERT_FILE: '/nonexistent/cert.pem',
        GRAPHQL_INTROSPECTION: 'OFF',
        GRAPHQL_DEFAULT_LIMIT: '500',
        GRAPHQL_MAX_LIMIT: '100',
        HTTP_COMPRESSION: 'maybe',
        CORS_ENABLED: 'true',
        CORS_ORIGINS: 'localhost:3000, https://ok.example/path',
        LOG_FORMAT: 'xml',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = [
      'NODE_ENV must be development or production, got "staging"',
      'TLS_CERT_FILE is set but TLS_KEY_FILE is not',
      'TLS_CERT_FILE "/nonexistent/cert.pem" is not a readable file',
      'GRAPHQL_DEFAULT_LIMIT (500) must not exceed GRAPHQL_MAX_LIMIT (100)',
      'CORS_ORIGINS entries must be origins like https://app.example.com or http://localhost:3000 (scheme, host, optional port, no path) or *, got "localhost:3000"',
      'CORS_ORIGINS entries must be origins like https://app.example.com or http://localhost:3000 (scheme, host, optional port, no path) or *, got "https://ok.example/path"',
      'HTTP_PORT must be an integer between 0 and 65535, got "eighty"',
      'HTTPS_PORT must be an integer between 0 and 65535, got "70000"',
      'HTTP_COMPRESSION must be true or false, got "maybe"',
      'GRAPHQL_INTROSPECTION must be one of DEFAULT, NO_INTROSPECTION, NO_INTROSPECTION_OR_QUERY, got "OFF"',
      'LOG_FORMAT must be one of json, pretty, got "xml"',
    ];
    expect((error as ConfigError).problems).toEqual(problems);
    expect((error as ConfigError).message).toBe(`Invalid configuration: ${problems.join('; ')}`);
  });

  it('cost, filter depth, concurrency and client keys are validated', () => {
    let error: unknown;
    try {
      loadCoreConfig({
        GRAPHQL_MAX_COST: '999',
        GRAPHQL_COST_TASKS_PER_INSTANCE: '-1',
        GRAPHQL_MAX_FILTER_DEPTH: '201',
        GRAPHQL_MAX_FILTER_CONDITIONS: '0',
        GRAPHQL_MAX_FILTER_IN_VALUES: '20001',
        GRAPHQL_MAX_CONCURRENT_READS: '0',
        HTTP_MAX_REQUESTS_PER_CLIENT: 'many',
        HTTP_CLIENT_ADDRESS_HEADER: 'X Forwarded: For',
      });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual([
      'GRAPHQL_MAX_COST (999) must be at least GRAPHQL_MAX_LIMIT (1000)',
      'HTTP_MAX_REQUESTS_PER_CLIENT must be an integer between 0 and 1000000, got "many"',
      'HTTP_CLIENT_ADDRESS_HEADER must be an HTTP header name such as X-Forwarded-For, got "X Forwarded: For"',
      'GRAPHQL_COST_TASKS_PER_INSTANCE must be an integer between 0 and 1000000, got "-1"',
      'GRAPHQL_MAX_FILTER_DEPTH must be an integer between 1 and 200, got "201"',
      'GRAPHQL_MAX_FILTER_CONDITIONS must be an integer between 1 and 5000, got "0"',
      'GRAPHQL_MAX_FILTER_IN_VALUES must be an integer between 1 and 20000, got "20001"',
      'GRAPHQL_MAX_CONCURRENT_READS must be an integer between 1 and 1000, got "0"',
    ]);
    expect(loadCoreConfig({ GRAPHQL_MAX_LIMIT: '50', GRAPHQL_DEFAULT_LIMIT: '50', GRAPHQL_MAX_COST: '50' }).graphql.maxCost).toBe(50);
  });

  it('the budget of rows in flight is at least GRAPHQL_MAX_COST (or 0), defaults to one and a half times it (one request at the maximum at a time), and its queue timeout is positive', () => {
    expect(() => loadCoreConfig({ GRAPHQL_MAX_COST_IN_FLIGHT: '19999', GRAPHQL_COST_QUEUE_TIMEOUT_MS: '0' })).toThrow(
      'Invalid configuration: GRAPHQL_MAX_COST_IN_FLIGHT (19999) must be at least GRAPHQL_MAX_COST (20000), or 0 to disable the budget; GRAPHQL_COST_QUEUE_TIMEOUT_MS must be an integer between 1 and 600000, got "0"',
    );
    expect(loadCoreConfig({ GRAPHQL_MAX_COST: '5000' }).graphql.maxCostInFlight).toBe(7_500);
    expect(loadCoreConfig({ GRAPHQL_MAX_LIMIT: '1', GRAPHQL_DEFAULT_LIMIT: '1', GRAPHQL_MAX_COST: '1' }).graphql.maxCostInFlight).toBe(1);
    expect(loadCoreConfig({ GRAPHQL_MAX_COST: '20001' }).graphql.maxCostInFlight).toBe(30_001);
    expect(loadCoreConfig({ GRAPHQL_MAX_COST_IN_FLIGHT: '0' }).graphql.maxCostInFlight).toBe(0);
    expect(loadCoreConfig({ GRAPHQL_MAX_COST_IN_FLIGHT: '20000' }).graphql.maxCostInFlight).toBe(20_000);
  });

  it('a request has seconds to arrive: the headers timeout defaults to 5 s or the body timeout if shorter, and may not exceed it', () => {
    expect(loadCoreConfig({ HTTP_BODY_TIMEOUT_MS: '600' }).http).toMatchObject({ headersTimeoutMs: 600, bodyTimeoutMs: 600 });
    expect(loadCoreConfig({ HTTP_BODY_TIMEOUT_MS: '60000' }).http).toMatchObject({ headersTimeoutMs: 5000, bodyTimeoutMs: 60_000 });
    expect(() => loadCoreConfig({ HTTP_HEADERS_TIMEOUT_MS: '20000' })).toThrow('Invalid configuration: HTTP_HEADERS_TIMEOUT_MS (20000) must not exceed HTTP_BODY_TIMEOUT_MS (10000)');
    expect(() => loadCoreConfig({ HTTP_BODY_TIMEOUT_MS: '0', HTTP_HEADERS_TIMEOUT_MS: '600001' })).toThrow(
      'Invalid configuration: HTTP_BODY_TIMEOUT_MS must be an integer between 100 and 600000, got "0"; HTTP_HEADERS_TIMEOUT_MS must be an integer between 100 and 600000, got "600001"',
    );
  });

  it('an export page is a list page: EXPORT_PAGE_SIZE at most GRAPHQL_MAX_LIMIT, and its default no more', () => {
    expect(loadCoreConfig({ GRAPHQL_MAX_LIMIT: '200', GRAPHQL_DEFAULT_LIMIT: '50' }).graphql.exportPageSize).toBe(200);
    expect(() => loadCoreConfig({ EXPORT_PAGE_SIZE: '1001' })).toThrow('Invalid configuration: EXPORT_PAGE_SIZE (1001) must not exceed GRAPHQL_MAX_LIMIT (1000): one page of an export is one list page');
  });

  it('CORS on without origins is a problem', () => {
    expect(() => loadCoreConfig({ CORS_ENABLED: 'true' })).toThrow('Invalid configuration: CORS_ENABLED is true but CORS_ORIGINS is empty');
  });

  it('documents every key it reads', () => {
    const documented = CORE_CONFIG_KEYS.flatMap((k) => k.key.split(' / '));
    for (const key of ['NODE_ENV', 'HTTP_HOST', 'HTTP_PORT', 'HTTPS_PORT', 'TLS_CERT_FILE', 'TLS_KEY_FILE', 'HTTP_COMPRESSION', 'HTTP_MAX_BODY_BYTES', 'HTTP_SHUTDOWN_TIMEOUT_MS', 'GRAPHQL_INTROSPECTION', 'GRAPHQL_MAX_DEPTH', 'GRAPHQL_MAX_ALIASES', 'GRAPHQL_MAX_TOKENS', 'GRAPHQL_MAX_DIRECTIVES', 'GRAPHQL_DEFAULT_LIMIT', 'GRAPHQL_MAX_LIMIT', 'CORS_ENABLED', 'CORS_ORIGINS', 'LOG_LEVEL', 'LOG_FORMAT', 'HEALTH_BACKEND_TIMEOUT_MS', 'HEALTH_DISK_PATH', 'HEALTH_DISK_MIN_FREE_BYTES', 'METRICS_BACKEND_TIMEOUT_MS', 'GRAPHQL_MAX_COST', 'GRAPHQL_COST_TASKS_PER_INSTANCE', 'GRAPHQL_MAX_FILTER_DEPTH', 'GRAPHQL_MAX_FILTER_CONDITIONS', 'GRAPHQL_MAX_FILTER_IN_VALUES', 'GRAPHQL_MAX_CONCURRENT_READS', 'HTTP_MAX_REQUESTS_PER_CLIENT', 'HTTP_CLIENT_ADDRESS_HEADER', 'CONSOLE_ENABLED', 'COUNT_EXACT_LIMIT', 'GRAPHQL_MAX_COST_IN_FLIGHT', 'GRAPHQL_COST_QUEUE_TIMEOUT_MS', 'GRAPHQL_COMPILED_EXECUTION', 'EXPORT_PAGE_SIZE', 'HTTP_HEADERS_TIMEOUT_MS', 'HTTP_BODY_TIMEOUT_MS']) {
      expect(documented).toContain(key);
    }
  });
});

describe('collectConfig', () => {
  it('reports the problems of core and backend in one ConfigError', () => {
    const loadDatabase = (env: Record<string, string | undefined>) => {
      const r = new ConfigReader(env);
      if (r.raw('DATABASE_URL') === undefined) r.problem('missing DATABASE_URL');
      const poolMax = r.int('DATABASE_POOL_MAX', 20, { min: 1, max: 1000 });
      return r.finish({ url: r.raw('DATABASE_URL') ?? null, poolMax });
    };
    const env = { HTTP_PORT: '-1', DATABASE_POOL_MAX: '0' };
    expect(() => collectConfig({ core: () => loadCoreConfig(env), database: () => loadDatabase(env) })).toThrow(
      new ConfigError(['HTTP_PORT must be an integer between 0 and 65535, got "-1"', 'missing DATABASE_URL', 'DATABASE_POOL_MAX must be an integer between 1 and 1000, got "0"']),
    );
    const ok = collectConfig({ core: () => loadCoreConfig({}), database: () => loadDatabase({ DATABASE_URL: 'postgres://x' }) });
    expect(ok.core.http.port).toBe(8080);
    expect(ok.database).toEqual({ url: 'postgres://x', poolMax: 20 });
  });

  it('ConfigError.combine merges problems in order', () => {
    expect(ConfigError.combine([new ConfigError(['a', 'b']), new ConfigError(['c'])]).problems).toEqual(['a', 'b', 'c']);
  });

  it('rethrows errors that are not configuration problems', () => {
    expect(() =>
      collectConfig({
        broken: () => {
          throw new TypeError('bug');
        },
      }),
    ).toThrow(TypeError);
  });
});
