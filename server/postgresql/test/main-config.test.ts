// The server's configuration: flags > env > defaults per mode, every problem reported at once, frozen result.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { ConfigError } from '@workflow-index/core';
import {
  DEFAULT_DEMO_EVENTS,
  loadPostgresqlConfig,
  parseServerFlags,
} from '../src/postgresql-config.js';

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('PostgreSQL server configuration', () => {
  it('DATABASE_MAX_REPLICATION_LAG_SECONDS: off by default, whole seconds, not negative', () => {
    expect(loadPostgresqlConfig({ DATABASE_URL: 'postgres://u@h/d', DATABASE_MAX_REPLICATION_LAG_SECONDS: '30' }).database.maxReplicationLagSeconds).toBe(30);
    expect(() => loadPostgresqlConfig({ DATABASE_URL: 'postgres://u@h/d', DATABASE_MAX_REPLICATION_LAG_SECONDS: '-1' })).toThrow(/DATABASE_MAX_REPLICATION_LAG_SECONDS/);
  });

  it('development without a database URL: embedded database, migrations and demo events on', () => {
    const config = loadPostgresqlConfig({ NODE_ENV: 'development' });
    expect(config.core.mode).toBe('development');
    expect(config.database).toEqual({
      connection: null, devServices: 'embedded', migrate: true, schemaInitEnabled: true, queryTimeoutMs: 5000, connectTimeoutMs: 3000,
      maxReplicationLagSeconds: 0,
    });
    expect(config.dev).toEqual({ dataDir: '.data/pglite', databasePort: 54329, demoEvents: DEFAULT_DEMO_EVENTS, containerImage: 'postgres:17' });
    expect(existsSync(DEFAULT_DEMO_EVENTS)).toBe(true);
    expect(Object.isFrozen(config) && Object.isFrozen(config.database) && Object.isFrozen(config.dev) && Object.isFrozen(config.core.http)).toBe(true);
  });

  it('production: the URL is required, the schema is left alone unless DATABASE_MIGRATE=true', () => {
    const plain = loadPostgresqlConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://reader:pw@db.example:5433/wi' });
    expect(plain.database.devServices).toBeNull();
    expect(plain.database.migrate).toBe(false);
    expect(plain.dev.demoEvents).toBeNull();
    expect([plain.database.connection?.host, plain.database.connection?.port, plain.database.connection?.database, plain.database.connection?.user])
      .toEqual(['db.example', 5433, 'wi', 'reader']);
    expect(loadPostgresqlConfig({ DATABASE_URL: 'postgres://u@h/d', DATABASE_MIGRATE: 'true' }).database.migrate).toBe(true);
    expect(loadPostgresqlConfig({ DATABASE_URL: 'postgres://u@h/d', DATABASE_MIGRATE: 'true', SCHEMA_INIT_ENABLED: 'false' }).database).toMatchObject({
      migrate: false, schemaInitEnabled: false,
    });
    expect(loadPostgresqlConfig({ NODE_ENV: 'development', SCHEMA_INIT_ENABLED: 'false' }).database.migrate).toBe(false);
  });

  it('development with a database URL uses it: no dev services, no demo events, migrations still on', () => {
    const config = loadPostgresqlConfig({ NODE_ENV: 'development', QUARKUS_DATASOURCE_JDBC_URL: 'jdbc:postgresql://pg:5432/wi?connect_timeout=7', QUARKUS_DATASOURCE_USERNAME: 'dev' });
    expect(config.database).toMatchObject({ devServices: null, migrate: true, connectTimeoutMs: 7000 });
    expect(config.database.connection?.user).toBe('dev');
    expect(config.dev.demoEvents).toBeNull();
    expect(loadPostgresqlConfig({ DATABASE_URL: 'postgres://u@h/d?connect_timeout=7', DATABASE_CONNECT_TIMEOUT_MS: '1500' }).database.connectTimeoutMs).toBe(1500);
  });

  it('SERVER_PROCESSES: 1 by default; above 1 only with a database URL (the development database belongs to one process)', () => {
    expect(loadPostgresqlConfig({ DATABASE_URL: 'postgres://u@h/d' }).core.http.processes).toBe(1);
    expect(loadPostgresqlConfig({ DATABASE_URL: 'postgres://u@h/d', SERVER_PROCESSES: '4' }).core.http.processes).toBe(4);
    expect(loadPostgresqlConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgres://u@h/d', SERVER_PROCESSES: '2' }).core.http.processes).toBe(2);
    expect(problemsOf(() => loadPostgresqlConfig({ NODE_ENV: 'development', SERVER_PROCESSES: '2' }))).toEqual([
      'SERVER_PROCESSES above 1 needs DATABASE_URL: the development database belongs to one process',
    ]);
    expect(problemsOf(() => loadPostgresqlConfig({ DATABASE_URL: 'postgres://u@h/d', SERVER_PROCESSES: '0' })).join()).toContain('SERVER_PROCESSES');
  });

  it('flags win over the environment', () => {
    const { flags, problems } = parseServerFlags(['--port', '9090', '--dev-services=container', '--database-url', 'postgres://flag@h/d']);
    expect(problems).toEqual([]);
    const env = { NODE_ENV: 'development', HTTP_PORT: '8081', DEV_SERVICES: 'embedded' };
    const dev = loadPostgresqlConfig(env, { ...flags, databaseUrl: undefined });
    expect([dev.core.http.port, dev.database.devServices]).toEqual([9090, 'container']);
    const withUrl = loadPostgresqlConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://env@h/d' }, { databaseUrl: flags.databaseUrl });
    expect(withUrl.database.connection?.user).toBe('flag');
  });

  it('DEV_DEMO_EVENTS=none loads nothing; another file can be named', () => {
    expect(loadPostgresqlConfig({ NODE_ENV: 'development', DEV_DEMO_EVENTS: 'none' }).dev.demoEvents).toBeNull();
    expect(loadPostgresqlConfig({ NODE_ENV: 'development', DEV_DEMO_EVENTS: '/data/events.jsonl', DEV_DATA_DIR: '/tmp/pg' }).dev)
      .toMatchObject({ demoEvents: '/data/events.jsonl', dataDir: '/tmp/pg' });
  });

  it('reports every problem of core, connection and module keys together', () => {
    const { flags, problems: flagProblems } = parseServerFlags(['--no-such-flag']);
    expect(flagProblems).toEqual(['Unknown argument: no-such-flag']);
    expect(problemsOf(() => loadPostgresqlConfig({
      NODE_ENV: 'production', DATABASE_PASSWORD: 'secret', HTTP_PORT: '-1', DATABASE_MIGRATE: 'sometimes', DATABASE_QUERY_TIMEOUT_MS: 'soon', DEV_SERVICES: 'embedded',
    }, flags, flagProblems))).toEqual([
      'Unknown argument: no-such-flag',
      'HTTP_PORT must be an integer between 0 and 65535, got "-1"',
      'missing DATABASE_URL (or QUARKUS_DATASOURCE_JDBC_URL)',
      'DATABASE_PASSWORD is set but DATABASE_USERNAME is not',
      'DEV_SERVICES applies only in development (NODE_ENV=development)',
      'DATABASE_MIGRATE must be true or false, got "sometimes"',
      'DATABASE_QUERY_TIMEOUT_MS must be an integer between 1 and 3600000, got "soon"',
    ]);
    expect(problemsOf(() => loadPostgresqlConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgres://u@h/d' }, { devServices: 'container' })))
      .toEqual(['--dev-services is set but so is a database URL: unset one of them']);
    expect(problemsOf(() => loadPostgresqlConfig({ NODE_ENV: 'development', DEV_SERVICES: 'docker' })))
      .toEqual(['DEV_SERVICES must be one of embedded, container, got "docker"']);
  });
});
