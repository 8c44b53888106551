// Login roles for the group roles the migrations create: the server logs in as a member of
// workflow_index_reader, Fluent Bit as a member of workflow_index_forwarder, the retention CronJob (`init-job
// prune`) as a member of workflow_index_pruner. The init job creates them (or rotates their passwords) after
// migrating, so a deployment needs only an admin credential for the job. sql/create-login-roles.sql does the same
// for the reader and forwarder for operators who apply SQL by hand.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ClientBase } from 'pg';

export type LoginRoleKind = 'reader' | 'forwarder' | 'pruner';

const KINDS: readonly LoginRoleKind[] = ['reader', 'forwarder', 'pruner'];

export const GROUP_ROLES: Readonly<Record<LoginRoleKind, string>> = {
  reader: 'workflow_index_reader',
  forwarder: 'workflow_index_forwarder',
  pruner: 'workflow_index_pruner',
};

/** Who logs in as each kind, for the message that refuses one login for two of them. */
const USED_BY: Readonly<Record<LoginRoleKind, string>> = { reader: 'the server', forwarder: 'Fluent Bit', pruner: 'the retention CronJob' };

/** Fluent Bit writes unqualified table names, and its start-up CREATE TABLE IF NOT EXISTS needs CREATE on this schema. */
export const FORWARDER_SEARCH_PATH = 'workflow_raw';

export interface LoginRoleRequest {
  readonly kind: LoginRoleKind;
  readonly username: string;
  readonly password: string;
}

export interface LoginRoleFlags {
  readonly readerUsername?: string | undefined;
  readonly readerPassword?: string | undefined;
  readonly forwarderUsername?: string | undefined;
  readonly forwarderPassword?: string | undefined;
  readonly prunerUsername?: string | undefined;
  readonly prunerPassword?: string | undefined;
}

export interface LoginRoleResolution {
  readonly roles: readonly LoginRoleRequest[];
  readonly problems: readonly string[];
}

const ENV_NAMES: Readonly<Record<LoginRoleKind, { user: string; password: string; userFlag: string; passwordFlag: string }>> = {
  reader: {
    user: 'WORKFLOW_INDEX_READER_USERNAME',
    password: 'WORKFLOW_INDEX_READER_PASSWORD',
    userFlag: '--reader-username',
    passwordFlag: '--reader-password',
  },
  forwarder: {
    user: 'WORKFLOW_INDEX_FORWARDER_USERNAME',
    password: 'WORKFLOW_INDEX_FORWARDER_PASSWORD',
    userFlag: '--forwarder-username',
    passwordFlag: '--forwarder-password',
  },
  pruner: {
    user: 'WORKFLOW_INDEX_PRUNER_USERNAME',
    password: 'WORKFLOW_INDEX_PRUNER_PASSWORD',
    userFlag: '--pruner-username',
    passwordFlag: '--pruner-password',
  },
};

const FLAGS: Readonly<Record<LoginRoleKind, (flags: LoginRoleFlags) => { user: string | undefined; password: string | undefined }>> = {
  reader: (f) => ({ user: f.readerUsername, password: f.readerPassword }),
  forwarder: (f) => ({ user: f.forwarderUsername, password: f.forwarderPassword }),
  pruner: (f) => ({ user: f.prunerUsername, password: f.prunerPassword }),
};

const RESERVED_NAMES = new Set(['public', 'none', 'current_user', 'session_user', 'current_role', 'pg_database_owner']);

/** Which login roles are requested (flags win over the environment); both halves of a pair are required, and each kind needs a login of its own. */
export function resolveLoginRoles(env: Readonly<Record<string, string | undefined>>, flags: LoginRoleFlags = {}): LoginRoleResolution {
  const problems: string[] = [];
  const roles: LoginRoleRequest[] = [];
  const given = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v : undefined);
  for (const kind of KINDS) {
    const names = ENV_NAMES[kind];
    const fromFlags = FLAGS[kind](flags);
    const flagUser = given(fromFlags.user);
    const flagPassword = given(fromFlags.password);
    const username = flagUser ?? given(env[names.user]);
    const password = flagPassword ?? given(env[names.password]);
    const userSource = flagUser ? names.userFlag : names.user;
    const passwordSource = flagPassword ? names.passwordFlag : names.password;
    if (username === undefined && password === undefined) continue;
    if (username === undefined) {
      problems.push(`${passwordSource} is set but ${names.user} is not`);
      continue;
    }
    if (password === undefined) {
      problems.push(`${userSource} is set but ${names.password} is not`);
      continue;
    }
    const nameProblem = loginNameProblem(username.trim());
    if (nameProblem) {
      problems.push(`${userSource} ${nameProblem}`);
      continue;
    }
    roles.push({ kind, username: username.trim(), password });
  }
  // Sharing one login would give each user the other's privileges (a pruner that can read, a server that can delete).
  roles.forEach((a, i) => {
    for (const b of roles.slice(i + 1)) {
      if (a.username !== b.username) continue;
      problems.push(
        `${ENV_NAMES[a.kind].user} and ${ENV_NAMES[b.kind].user} name the same role "${a.username}"; ${USED_BY[a.kind]} and ${USED_BY[b.kind]} need separate logins`,
      );
    }
  });
  return { roles: problems.length > 0 ? [] : roles, problems };
}

function loginNameProblem(name: string): string | undefined {
  if (Buffer.byteLength(name, 'utf8') > 63) return `is longer than PostgreSQL's 63-byte limit for role names`;
  if (name.startsWith('pg_')) return `"${name}" uses the reserved prefix pg_`;
  if (RESERVED_NAMES.has(name.toLowerCase())) return `"${name}" is a reserved role name`;
  if (Object.values(GROUP_ROLES).includes(name)) return `"${name}" is a group role; choose a separate login name`;
  return undefined;
}

export interface LoginRoleResult {
  readonly kind: LoginRoleKind;
  readonly username: string;
  readonly group: string;
  readonly action: 'created' | 'updated';
}

export class LoginRoleError extends Error {
  override readonly name = 'LoginRoleError';
}

const LOCK_KEY = 7_461_905_212; // arbitrary, constant: "workflow-index login roles"

/**
 * SCRAM-SHA-256 verifier as PostgreSQL stores it, so the password itself never reaches the server (nor its
 * statement log). Only for ASCII passwords: PostgreSQL normalizes others with SASLprep first.
 */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

function passwordLiteral(password: string): string {
  const ascii = /^[\x20-\x7e]*$/.test(password);
  return pg.escapeLiteral(ascii ? scramSha256Verifier(password) : password);
}

/** The statements for one role, as run (`redact: false`) or as shown by a dry run (`redact: true`). */
export function loginRoleStatements(role: LoginRoleRequest, exists: boolean, options: { redact?: boolean } = {}): string[] {
  const ident = pg.escapeIdentifier(role.username);
  const password = options.redact ? `'***'` : passwordLiteral(role.password);
  return [
    exists ? `ALTER ROLE ${ident} WITH LOGIN INHERIT PASSWORD ${password}` : `CREATE ROLE ${ident} WITH LOGIN INHERIT PASSWORD ${password}`,
    `GRANT ${GROUP_ROLES[role.kind]} TO ${ident}`,
    ...(role.kind === 'forwarder' ? [`ALTER ROLE ${ident} SET search_path = ${FORWARDER_SEARCH_PATH}`] : []),
    // statement_timeout, work_mem and idle_in_transaction_session_timeout of the server's sessions (migration 0015)
    ...(role.kind === 'reader' ? [`SELECT workflow_index.bound_reader_login(${pg.escapeLiteral(role.username)})`] : []),
  ];
}

/**
 * Creates each login role, or updates it (LOGIN, password rotated), and makes it a member of its group role, in
 * one transaction. Refuses to touch superusers and the role it is connected as.
 */
export async function applyLoginRoles(client: ClientBase, roles: readonly LoginRoleRequest[]): Promise<LoginRoleResult[]> {
  if (roles.length === 0) return [];
  const results: LoginRoleResult[] = [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    const groups = await client.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY($1)', [Object.values(GROUP_ROLES)]);
    const present = new Set(groups.rows.map((r) => r.rolname));
    for (const role of roles) {
      const group = GROUP_ROLES[role.kind];
      if (!present.has(group)) throw new LoginRoleError(`group role ${group} does not exist: apply the migrations first`);
      const existing = await client.query<{ rolsuper: boolean; is_self: boolean }>(
        'SELECT rolsuper, rolname = session_user AS is_self FROM pg_roles WHERE rolname = $1',
        [role.username],
      );
      const row = existing.rows[0];
      if (row?.rolsuper) throw new LoginRoleError(`refusing to manage ${role.kind} login "${role.username}": it is a superuser`);
      if (row?.is_self) throw new LoginRoleError(`refusing to manage ${role.kind} login "${role.username}": it is the role this job is connected as`);
      for (const sql of loginRoleStatements(role, row !== undefined)) await client.query(sql);
      results.push({ kind: role.kind, username: role.username, group, action: row ? 'updated' : 'created' });
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (error instanceof LoginRoleError) throw error;
    // PostgreSQL's error messages do not quote the statement, so the password literal cannot leak through them.
    const message = error instanceof Error ? error.message : String(error);
    throw new LoginRoleError(`creating login roles failed: ${message}`, { cause: error });
  }
  return results;
}
