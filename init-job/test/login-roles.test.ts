import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  applyLoginRoles,
  LoginRoleError,
  loginRoleStatements,
  resolveLoginRoles,
  scramSha256Verifier,
} from '@workflow-index/postgresql';
import { createTestDatabase, dropLoginRoles, postgresReachable, type TestDatabase } from '@workflow-index/postgresql/testing';

const SQL_SCRIPT = fileURLToPath(new URL('../../server/postgresql/sql/create-login-roles.sql', import.meta.url));

describe('resolveLoginRoles', () => {
  it('takes complete pairs from the environment, flags first', () => {
    expect(
      resolveLoginRoles(
        { WORKFLOW_INDEX_READER_USERNAME: 'env_reader', WORKFLOW_INDEX_READER_PASSWORD: 'a', WORKFLOW_INDEX_FORWARDER_USERNAME: 'fwd', WORKFLOW_INDEX_FORWARDER_PASSWORD: 'b' },
        { readerUsername: 'flag_reader' },
      ),
    ).toEqual({
      roles: [
        { kind: 'reader', username: 'flag_reader', password: 'a' },
        { kind: 'forwarder', username: 'fwd', password: 'b' },
      ],
      problems: [],
    });
    expect(resolveLoginRoles({})).toEqual({ roles: [], problems: [] });
    expect(resolveLoginRoles({ WORKFLOW_INDEX_READER_USERNAME: ' ', WORKFLOW_INDEX_READER_PASSWORD: '' })).toEqual({ roles: [], problems: [] });
  });

  it('lists every problem: half pairs, reserved or group names, one login for both', () => {
    expect(
      resolveLoginRoles({ WORKFLOW_INDEX_READER_PASSWORD: 'x', WORKFLOW_INDEX_FORWARDER_USERNAME: 'workflow_index_forwarder', WORKFLOW_INDEX_FORWARDER_PASSWORD: 'y' }).problems,
    ).toEqual([
      'WORKFLOW_INDEX_READER_PASSWORD is set but WORKFLOW_INDEX_READER_USERNAME is not',
      'WORKFLOW_INDEX_FORWARDER_USERNAME "workflow_index_forwarder" is a group role; choose a separate login name',
    ]);
    expect(resolveLoginRoles({}, { forwarderUsername: 'pg_fluent', forwarderPassword: 'p', readerUsername: 'r'.repeat(64), readerPassword: 'p' }).problems).toEqual([
      "--reader-username is longer than PostgreSQL's 63-byte limit for role names",
      '--forwarder-username "pg_fluent" uses the reserved prefix pg_',
    ]);
    expect(
      resolveLoginRoles({ WORKFLOW_INDEX_READER_USERNAME: 'same', WORKFLOW_INDEX_READER_PASSWORD: 'a', WORKFLOW_INDEX_FORWARDER_USERNAME: 'same', WORKFLOW_INDEX_FORWARDER_PASSWORD: 'b' }),
    ).toEqual({
      roles: [],
      problems: ['WORKFLOW_INDEX_READER_USERNAME and WORKFLOW_INDEX_FORWARDER_USERNAME name the same role "same"; the server and Fluent Bit need separate logins'],
    });
  });

  it('takes the pruner pair like the others and refuses a login shared with the server or Fluent Bit', () => {
    expect(resolveLoginRoles({ WORKFLOW_INDEX_PRUNER_USERNAME: 'wi_prune', WORKFLOW_INDEX_PRUNER_PASSWORD: 'p' }, { prunerUsername: 'flag_prune' })).toEqual({
      roles: [{ kind: 'pruner', username: 'flag_prune', password: 'p' }],
      problems: [],
    });
    expect(resolveLoginRoles({ WORKFLOW_INDEX_PRUNER_USERNAME: 'workflow_index_pruner' }, { prunerPassword: 'p' }).problems).toEqual([
      'WORKFLOW_INDEX_PRUNER_USERNAME "workflow_index_pruner" is a group role; choose a separate login name',
    ]);
    expect(resolveLoginRoles({}, { prunerPassword: 'p' }).problems).toEqual(['--pruner-password is set but WORKFLOW_INDEX_PRUNER_USERNAME is not']);
    expect(
      resolveLoginRoles({
        WORKFLOW_INDEX_READER_USERNAME: 'same',
        WORKFLOW_INDEX_READER_PASSWORD: 'a',
        WORKFLOW_INDEX_FORWARDER_USERNAME: 'same',
        WORKFLOW_INDEX_FORWARDER_PASSWORD: 'b',
        WORKFLOW_INDEX_PRUNER_USERNAME: 'same',
        WORKFLOW_INDEX_PRUNER_PASSWORD: 'c',
      }),
    ).toEqual({
      roles: [],
      problems: [
        'WORKFLOW_INDEX_READER_USERNAME and WORKFLOW_INDEX_FORWARDER_USERNAME name the same role "same"; the server and Fluent Bit need separate logins',
        'WORKFLOW_INDEX_READER_USERNAME and WORKFLOW_INDEX_PRUNER_USERNAME name the same role "same"; the server and the retention CronJob need separate logins',
        'WORKFLOW_INDEX_FORWARDER_USERNAME and WORKFLOW_INDEX_PRUNER_USERNAME name the same role "same"; Fluent Bit and the retention CronJob need separate logins',
      ],
    });
    expect(loginRoleStatements({ kind: 'pruner', username: 'wi_prune', password: 'x' }, true, { redact: true })).toEqual([
      `ALTER ROLE "wi_prune" WITH LOGIN INHERIT PASSWORD '***'`,
      'GRANT workflow_index_pruner TO "wi_prune"',
    ]);
  });

  it('quotes identifiers, sends a SCRAM verifier instead of the password and redacts it for dry runs', () => {
    const role = { kind: 'forwarder' as const, username: 'fluent "bit"', password: "it's-secret" };
    const [create, grant, searchPath] = loginRoleStatements(role, false);
    expect(create).toMatch(/^CREATE ROLE "fluent ""bit""" WITH LOGIN INHERIT PASSWORD 'SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+'$/);
    expect(create).not.toContain('secret');
    expect([grant, searchPath]).toEqual(['GRANT workflow_index_forwarder TO "fluent ""bit"""', 'ALTER ROLE "fluent ""bit""" SET search_path = workflow_raw']);
    expect(loginRoleStatements({ ...role, kind: 'reader' }, true, { redact: true })).toEqual([
      `ALTER ROLE "fluent ""bit""" WITH LOGIN INHERIT PASSWORD '***'`,
      'GRANT workflow_index_reader TO "fluent ""bit"""',
      `SELECT workflow_index.bound_reader_login('fluent "bit"')`,
    ]);
    // RFC 7677-style derivation: same salt and iterations give the same verifier, another password does not.
    const salt = Buffer.from('0123456789abcdef');
    expect(scramSha256Verifier('pw', salt, 4096)).toBe(scramSha256Verifier('pw', salt, 4096));
    expect(scramSha256Verifier('pw', salt, 4096)).not.toBe(scramSha256Verifier('pw2', salt, 4096));
  });
});

const available = await postgresReachable();
const psqlAvailable = spawnSync('psql', ['--version']).status === 0;

describe.skipIf(!available)('login roles on the real server', () => {
  let db: TestDatabase;
  const suffix = randomBytes(4).toString('hex');
  const oddReader = `wi h1 "odd" ${suffix}`;
  const scriptReader = `wi_h1_sql_reader_${suffix}`;
  const scriptForwarder = `wi_h1_sql_fwd_${suffix}`;
  const scriptPruner = `wi_h1_sql_prune_${suffix}`;

  const roleInfo = async (name: string): Promise<{ groups: string[]; config: string[] | null; password: string | null } | undefined> => {
    const res = await db.pool.query<{ groups: string[]; config: string[] | null; password: string | null }>(
      `SELECT coalesce(array_agg(g.rolname::text ORDER BY g.rolname) FILTER (WHERE g.rolname IS NOT NULL), '{}'::text[]) AS groups,
              r.rolconfig AS config, a.rolpassword AS password
       FROM pg_roles r JOIN pg_authid a ON a.oid = r.oid
       LEFT JOIN pg_auth_members m ON m.member = r.oid LEFT JOIN pg_roles g ON g.oid = m.roleid
       WHERE r.rolname = $1 GROUP BY r.rolconfig, a.rolpassword`,
      [name],
    );
    return res.rows[0];
  };
  const matches = (stored: string | null | undefined, password: string): boolean => {
    const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored ?? '');
    return m !== null && scramSha256Verifier(password, Buffer.from(m[2]!, 'base64'), Number(m[1])) === stored;
  };

  beforeAll(async () => {
    db = await createTestDatabase({ prefix: 'wi_roles' });
  });
  afterAll(async () => {
    await db?.drop();
    await dropLoginRoles(oddReader, scriptReader, scriptForwarder, scriptPruner);
  });

  it('creates a role whose name needs quoting, then rotates its password', async () => {
    const client = await db.pool.connect();
    try {
      expect(await applyLoginRoles(client, [{ kind: 'reader', username: oddReader, password: 'first' }])).toEqual([
        { kind: 'reader', username: oddReader, group: 'workflow_index_reader', action: 'created' },
      ]);
      expect(matches((await roleInfo(oddReader))?.password, 'first')).toBe(true);
      expect(await applyLoginRoles(client, [{ kind: 'reader', username: oddReader, password: 'second' }])).toEqual([
        { kind: 'reader', username: oddReader, group: 'workflow_index_reader', action: 'updated' },
      ]);
      const info = await roleInfo(oddReader);
      expect(info?.groups).toEqual(['workflow_index_reader']);
      expect([matches(info?.password, 'second'), matches(info?.password, 'first')]).toEqual([true, false]);
    } finally {
      client.release();
    }
  });

  it('refuses to manage a superuser or its own role, and changes nothing then', async () => {
    const client = await db.pool.connect();
    try {
      const admin = (await client.query<{ u: string }>('SELECT session_user AS u')).rows[0]!.u;
      const error = await applyLoginRoles(client, [
        { kind: 'forwarder', username: `wi_h1_never_${suffix}`, password: 'x' },
        { kind: 'reader', username: admin, password: 'x' },
      ]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LoginRoleError);
      expect((error as Error).message).toBe(`refusing to manage reader login "${admin}": it is a superuser`);
      expect(await roleInfo(`wi_h1_never_${suffix}`)).toBeUndefined(); // rolled back with the refusal
    } finally {
      client.release();
    }
  });

  describe.skipIf(!psqlAvailable)('sql/create-login-roles.sql through psql', () => {
    const psql = (vars: Record<string, string>): { status: number | null; stdout: string; stderr: string } => {
      const args = [db.url, '-X', '-q', '-f', SQL_SCRIPT, ...Object.entries(vars).flatMap(([k, v]) => ['-v', `${k}=${v}`])];
      const r = spawnSync('psql', args, { encoding: 'utf8' });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };

    it('creates the three logins with their groups, passwords and search_path, and rotates on a re-run', async () => {
      const first = psql({ reader_user: scriptReader, reader_password: "r'1 \\x", forwarder_user: scriptForwarder, forwarder_password: 'f-1', pruner_user: scriptPruner, pruner_password: 'p-1' });
      expect(first.stderr).toBe('');
      expect(first.status).toBe(0);
      expect(first.stdout).toBe(
        `reader login "${scriptReader}" is a member of workflow_index_reader\nforwarder login "${scriptForwarder}" is a member of workflow_index_forwarder, search_path workflow_raw\npruner login "${scriptPruner}" is a member of workflow_index_pruner\n`,
      );
      const reader = await roleInfo(scriptReader);
      const forwarder = await roleInfo(scriptForwarder);
      const pruner = await roleInfo(scriptPruner);
      expect([reader?.groups, reader?.config, matches(reader?.password, "r'1 \\x")]).toEqual([['workflow_index_reader'], null, true]);
      expect([forwarder?.groups, forwarder?.config, matches(forwarder?.password, 'f-1')]).toEqual([['workflow_index_forwarder'], ['search_path=workflow_raw'], true]);
      expect([pruner?.groups, pruner?.config, matches(pruner?.password, 'p-1')]).toEqual([['workflow_index_pruner'], null, true]);
      // The reader's session limits, in this database only (migrations/0015_reader_session_limits.sql).
      const limits = await db.pool.query<{ setconfig: string[] }>(
        `SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
         WHERE r.rolname = $1 AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [scriptReader],
      );
      expect(limits.rows.map((r) => r.setconfig)).toEqual([['statement_timeout=30s', 'work_mem=4MB', 'idle_in_transaction_session_timeout=60s']]);

      const rotate = psql({ forwarder_user: scriptForwarder, forwarder_password: 'f-2' });
      expect(rotate.status).toBe(0);
      expect(matches((await roleInfo(scriptForwarder))?.password, 'f-2')).toBe(true);
      expect(matches((await roleInfo(scriptReader))?.password, "r'1 \\x")).toBe(true);
    });

    it('stops with an error when a password is missing or the user is a superuser', async () => {
      const missing = psql({ reader_user: scriptReader });
      expect(missing.status).toBe(3);
      expect(missing.stderr).toContain('reader_user is set but reader_password is not');
      const missingPruner = psql({ pruner_user: scriptPruner });
      expect(missingPruner.status).toBe(3);
      expect(missingPruner.stderr).toContain('pruner_user is set but pruner_password is not');
      const admin = (await db.pool.query<{ u: string }>('SELECT session_user AS u')).rows[0]!.u;
      const superuser = psql({ forwarder_user: admin, forwarder_password: 'x' });
      expect(superuser.status).toBe(3);
      expect(superuser.stderr).toContain('forwarder_user names a superuser; choose a dedicated login');
    });
  });
});
