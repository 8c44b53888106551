import { describe, expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import pg from 'pg';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  describePostgresConnection,
  resolvePostgresConnection,
  toPoolConfig,
  type Environment,
  type PostgresConnectionSettings,
} from '../src/connection-settings.js';
import { ADMIN_URL, type TestDatabase } from './support/test-database.js';

function settingsOf(env: Environment, flags = {}): PostgresConnectionSettings {
  const { settings, problems } = resolvePostgresConnection(env, flags);
  expect(problems).toEqual([]);
  if (!settings) throw new Error('no settings');
  return settings;
}

function problemsOf(env: Environment, flags = {}): readonly string[] {
  const { settings, problems } = resolvePostgresConnection(env, flags);
  expect(settings).toBeNull();
  return problems;
}

describe('resolvePostgresConnection: URL forms', () => {
  it('reads a postgres URL with percent-encoded credentials and sslmode', () => {
    const s = settingsOf({ DATABASE_URL: 'postgres://alice:s%40cr%2Bet@db.example:6543/workflow_index?sslmode=require' });
    expect({ host: s.host, port: s.port, database: s.database, user: s.user, password: s.password, sslMode: s.sslMode, source: s.source })
      .toEqual({ host: 'db.example', port: 6543, database: 'workflow_index', user: 'alice', password: 's@cr+et', sslMode: 'require', source: 'DATABASE_URL' });
    expect(s.redactedUrl).toBe('postgres://alice:***@db.example:6543/workflow_index?sslmode=require');
    expect([s.poolMin, s.poolMax]).toEqual([5, 20]);
    expect(toPoolConfig(s)).toEqual({
      host: 'db.example', port: 6543, database: 'workflow_index', user: 'alice', password: 's@cr+et',
      ssl: { rejectUnauthorized: false }, min: 5, max: 20,
    });
  });

  it('accepts postgresql://, defaults port 5432, no sslmode means TLS off, and `+` stays literal', () => {
    const s = settingsOf({ DATABASE_URL: 'postgresql://bob:a+b@db/wi' });
    expect([s.host, s.port, s.database, s.user, s.password, s.sslMode]).toEqual(['db', 5432, 'wi', 'bob', 'a+b', 'disable']);
    expect(toPoolConfig(s).ssl).toBe(false);
  });

  it('reads a JDBC URL with user, password, sslmode and currentSchema in the query', () => {
    const s = settingsOf({
      DATABASE_URL: 'jdbc:postgresql://pg.postgresql.svc.cluster.local:5433/dataindex?user=dataindex&password=data%26index+123&sslmode=verify-full&currentSchema=workflow_index&stringtype=unspecified',
    });
    expect({ host: s.host, port: s.port, database: s.database, user: s.user, password: s.password, sslMode: s.sslMode, searchPath: s.searchPath }).toEqual({
      host: 'pg.postgresql.svc.cluster.local', port: 5433, database: 'dataindex', user: 'dataindex',
      password: 'data&index 123', // pgjdbc decodes `+` as a space
      sslMode: 'verify-full', searchPath: 'workflow_index',
    });
    expect(s.redactedUrl).toBe('postgres://dataindex:***@pg.postgresql.svc.cluster.local:5433/dataindex?sslmode=verify-full&currentSchema=workflow_index');
    const config = toPoolConfig(s);
    expect(config.ssl).toEqual({ rejectUnauthorized: true });
    expect(config.options).toBe('-c search_path=workflow_index');
  });

  it('accepts the short JDBC forms and IPv6 hosts', () => {
    const short = settingsOf({ DATABASE_URL: 'jdbc:postgresql:dataindex' });
    expect([short.host, short.port, short.database]).toEqual(['localhost', 5432, 'dataindex']);
    const v6 = settingsOf({ DATABASE_URL: 'postgres://u@[::1]:5444/db' });
    expect([v6.host, v6.port, v6.redactedUrl]).toEqual(['::1', 5444, 'postgres://u@[::1]:5444/db?sslmode=disable']);
  });

  it('reads the CA bundle named by sslrootcert, and reports a missing one', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'wi-ca-')), 'ca.pem');
    writeFileSync(file, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const s = settingsOf({ DATABASE_URL: `postgres://h/db?sslmode=verify-full&sslrootcert=${encodeURIComponent(file)}` });
    expect(s.sslRootCertFile).toBe(file);
    expect(toPoolConfig(s).ssl).toEqual({ rejectUnauthorized: true, ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' });
    expect(problemsOf({ DATABASE_URL: 'postgres://h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem' })).toEqual([
      'DATABASE_URL has sslrootcert=/nonexistent/ca.pem, which does not exist or is not readable',
    ]);
  });

  it('maps pgjdbc ssl=true to verify-full and the non-validating factory to require', () => {
    expect(settingsOf({ DATABASE_URL: 'jdbc:postgresql://h/db?ssl=true' }).sslMode).toBe('verify-full');
    expect(settingsOf({ DATABASE_URL: 'jdbc:postgresql://h/db?ssl=true&sslfactory=org.postgresql.ssl.NonValidatingFactory' }).sslMode).toBe('require');
    expect(settingsOf({ DATABASE_URL: 'jdbc:postgresql://h/db?sslmode=disable' }).sslMode).toBe('disable');
    const ca = settingsOf({ DATABASE_URL: 'postgres://h/db?sslmode=verify-ca' });
    const ssl = toPoolConfig(ca).ssl as { rejectUnauthorized: boolean; checkServerIdentity: () => undefined };
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(ssl.checkServerIdentity()).toBeUndefined();
  });
});

describe('resolvePostgresConnection: precedence', () => {
  it('DATABASE_USERNAME / DATABASE_PASSWORD override the URL credentials', () => {
    const s = settingsOf({ DATABASE_URL: 'jdbc:postgresql://h:5432/db?user=url_user&password=url_pw', DATABASE_USERNAME: 'env_user', DATABASE_PASSWORD: 'env_pw' });
    expect([s.user, s.password]).toEqual(['env_user', 'env_pw']);
  });

  it('accepts the Quarkus aliases, and the DATABASE_* names win when both are set', () => {
    const quarkus = settingsOf({
      QUARKUS_DATASOURCE_JDBC_URL: 'jdbc:postgresql://quarkus-host:5432/dataindex',
      QUARKUS_DATASOURCE_USERNAME: 'dataindex',
      QUARKUS_DATASOURCE_PASSWORD: 'dataindex123',
    });
    expect([quarkus.host, quarkus.user, quarkus.password, quarkus.source]).toEqual(['quarkus-host', 'dataindex', 'dataindex123', 'QUARKUS_DATASOURCE_JDBC_URL']);

    const both = settingsOf({
      DATABASE_URL: 'postgres://own-host/wi',
      DATABASE_USERNAME: 'own_user',
      DATABASE_PASSWORD: 'own_pw',
      QUARKUS_DATASOURCE_JDBC_URL: 'jdbc:postgresql://quarkus-host:5432/dataindex',
      QUARKUS_DATASOURCE_USERNAME: 'dataindex',
      QUARKUS_DATASOURCE_PASSWORD: 'dataindex123',
    });
    expect([both.host, both.user, both.password, both.source]).toEqual(['own-host', 'own_user', 'own_pw', 'DATABASE_URL']);

    const mixed = settingsOf({ DATABASE_URL: 'postgres://own-host/wi', QUARKUS_DATASOURCE_USERNAME: 'dataindex', QUARKUS_DATASOURCE_PASSWORD: 'pw' });
    expect([mixed.user, mixed.password]).toEqual(['dataindex', 'pw']);
  });

  it('flags win over the environment; blank values count as unset', () => {
    const s = settingsOf(
      { DATABASE_URL: 'postgres://env-host/env_db', DATABASE_USERNAME: 'env_user', DATABASE_PASSWORD: '' },
      { databaseUrl: 'postgres://flag-host/flag_db', databaseUsername: 'flag_user', databasePassword: 'flag_pw' },
    );
    expect([s.host, s.database, s.user, s.password, s.source]).toEqual(['flag-host', 'flag_db', 'flag_user', 'flag_pw', '--database-url']);
    const blank = settingsOf({ DATABASE_URL: '  ', QUARKUS_DATASOURCE_JDBC_URL: 'jdbc:postgresql://q/db' });
    expect(blank.source).toBe('QUARKUS_DATASOURCE_JDBC_URL');
  });
});

describe('resolvePostgresConnection: pool bounds', () => {
  it('defaults to 5 / 20 and accepts integers with min ≤ max', () => {
    const s = settingsOf({ DATABASE_URL: 'postgres://h/db', DATABASE_POOL_MIN: '0', DATABASE_POOL_MAX: '1' });
    expect([s.poolMin, s.poolMax]).toEqual([0, 1]);
    expect([toPoolConfig(s).min, toPoolConfig(s).max]).toEqual([0, 1]);
    expect(toPoolConfig(s, { max: 3 }).max).toBe(3);
  });

  it('rejects non-integers, out-of-range values and min > max', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://h/db', DATABASE_POOL_MAX: 'x' })).toEqual(['DATABASE_POOL_MAX must be an integer ≥ 1, got "x"']);
    expect(problemsOf({ DATABASE_URL: 'postgres://h/db', DATABASE_POOL_MAX: '0', DATABASE_POOL_MIN: '1.5' })).toEqual([
      'DATABASE_POOL_MIN must be an integer ≥ 0, got "1.5"',
      'DATABASE_POOL_MAX must be an integer ≥ 1, got "0"',
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://h/db', DATABASE_POOL_MIN: '-1' })).toEqual(['DATABASE_POOL_MIN must be an integer ≥ 0, got "-1"']);
    expect(problemsOf({ DATABASE_URL: 'postgres://h/db', DATABASE_POOL_MIN: '30' })).toEqual(['DATABASE_POOL_MIN (30) must not be greater than DATABASE_POOL_MAX (20)']);
  });
});

describe('resolvePostgresConnection: problems', () => {
  it('reports every problem at once, phrased for an operator', () => {
    expect(problemsOf({ DATABASE_PASSWORD: 'pw', DATABASE_POOL_MAX: 'x' })).toEqual([
      'missing DATABASE_URL (or QUARKUS_DATASOURCE_JDBC_URL)',
      'DATABASE_PASSWORD is set but DATABASE_USERNAME is not',
      'DATABASE_POOL_MAX must be an integer ≥ 1, got "x"',
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://host/db', DATABASE_PASSWORD: 'pw' })).toEqual([
      'DATABASE_PASSWORD is set but DATABASE_USERNAME is not (and DATABASE_URL names no user)',
    ]);
    expect(problemsOf({ QUARKUS_DATASOURCE_JDBC_URL: 'jdbc:postgresql://h/db', QUARKUS_DATASOURCE_PASSWORD: 'pw' })).toEqual([
      'QUARKUS_DATASOURCE_PASSWORD is set but QUARKUS_DATASOURCE_USERNAME is not (and QUARKUS_DATASOURCE_JDBC_URL names no user)',
    ]);
  });

  it('a password without a user name is fine when the URL names the user', () => {
    const s = settingsOf({ DATABASE_URL: 'postgres://url_user@host/db', DATABASE_PASSWORD: 'pw' });
    expect([s.user, s.password]).toEqual(['url_user', 'pw']);
  });

  it('rejects multi-host JDBC URLs, unsupported sslmodes, foreign schemes and bad ports with clear messages', () => {
    expect(problemsOf({ DATABASE_URL: 'jdbc:postgresql://pg-0:5432,pg-1:5432/dataindex?targetServerType=primary' })).toEqual([
      'DATABASE_URL names 2 hosts (pg-0:5432, pg-1:5432); multi-host URLs are not supported: point it at one host, e.g. a Service that always routes to the primary',
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://h/db?sslmode=prefer' })).toEqual([
      'DATABASE_URL has sslmode=prefer, which is not supported; use one of disable, require, verify-ca, verify-full (node-postgres cannot fall back between TLS and plain connections: choose one)',
    ]);
    expect(problemsOf({ DATABASE_URL: 'mysql://u:p@h/db' })).toEqual([
      'DATABASE_URL is not a PostgreSQL URL (scheme "mysql"): expected postgres://user:password@host:port/database or jdbc:postgresql://host:port/database',
    ]);
    expect(problemsOf({ DATABASE_URL: 'jdbc:mysql://h/db' })).toEqual([
      'DATABASE_URL is a JDBC URL for "mysql", not PostgreSQL (expected postgres://user:password@host:port/database or jdbc:postgresql://host:port/database)',
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://h:99999/db' })).toEqual([
      'DATABASE_URL has an invalid port "99999" (expected 1–65535; percent-encode special characters in the user name and password)',
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://h/db?sslmode=required' })).toEqual([
      'DATABASE_URL has an unknown sslmode, which is not supported; use one of disable, require, verify-ca, verify-full',
    ]);
  });

  it('never puts a password into a message, the redacted URL, the description or a serialized settings object', () => {
    const secret = 'Sup3r$ecret';
    const encoded = encodeURIComponent(secret);
    const failing: Environment[] = [
      { DATABASE_URL: `postgres://u:${encoded}@h:notaport/db` },
      // unencoded `/` or `,` in a password: the authority ends early and the password looks like a port or host
      { DATABASE_URL: `postgres://u:${secret}/x@h/db` },
      { DATABASE_URL: `postgres://u:a,${secret}/x@h/db` },
      { DATABASE_URL: `jdbc:postgresql://h/db?password=${encoded}&connectTimeout=${encoded}` },
      { DATABASE_URL: `${secret}@h/db` },
      { DATABASE_URL: `jdbc:postgresql://a,b/db?password=${encoded}` },
      { DATABASE_URL: `postgres://u:${encoded}@h/db?sslmode=${encoded}` },
      { DATABASE_URL: `postgres://u:${encoded}%zz@h/db` },
      { DATABASE_URL: `ftp://u:${encoded}@h/db`, DATABASE_PASSWORD: secret, DATABASE_POOL_MIN: 'x' },
      { DATABASE_PASSWORD: secret, QUARKUS_DATASOURCE_PASSWORD: secret },
    ];
    for (const env of failing) {
      const { problems } = resolvePostgresConnection(env);
      expect(problems.length).toBeGreaterThan(0);
      expect(problems.join('\n')).not.toContain(secret);
      expect(problems.join('\n')).not.toContain(encoded);
    }
    const ok = settingsOf({ DATABASE_URL: `jdbc:postgresql://h/db?user=u&password=${encoded}` });
    expect(ok.password).toBe(secret);
    for (const text of [ok.redactedUrl, describePostgresConnection(ok), JSON.stringify(ok), String(Object.keys(ok))]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(encoded);
    }
    expect(describePostgresConnection(ok)).toBe('u@h:5432/db (sslmode=disable, from DATABASE_URL, pool 5–20)');
  });
});

describePostgres('connection settings against the real server', () => {
  let db: TestDatabase;
  it.beforeAll(async ({ database }) => {
    db = database;
  });

  it('a JDBC URL with Quarkus aliases and currentSchema connects as configured', async () => {
    const admin = new URL(ADMIN_URL);
    const jdbc = `jdbc:postgresql://${admin.hostname}:${admin.port || 5432}/${db.name}?currentSchema=workflow_index&ApplicationName=wi-settings-test&sslmode=disable`;
    const s = settingsOf({ QUARKUS_DATASOURCE_JDBC_URL: jdbc, QUARKUS_DATASOURCE_USERNAME: decodeURIComponent(admin.username) || 'postgres' });
    const pool = new pg.Pool(toPoolConfig(s, { max: 1 }));
    try {
      const res = await pool.query<{ db: string; sp: string; app: string; n: string }>(
        `SELECT current_database() AS db, current_setting('search_path') AS sp, current_setting('application_name') AS app,
                (SELECT count(*) FROM workflow_instances)::text AS n`,
      );
      expect(res.rows[0]).toEqual({ db: db.name, sp: 'workflow_index', app: 'wi-settings-test', n: '0' });
    } finally {
      await pool.end();
    }
  });
});
