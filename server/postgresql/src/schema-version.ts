// The schema a release needs versus the schema a database has. One rule, used by the migrator (an older
// release's init job refuses a newer database instead of damaging it), by the server (readiness stays DOWN with
// the reason until the database matches) and, through the same wording, by the wait-for-schema init container.
//
// A release needs: every migration it ships (the highest version is "the schema version"), exactly its normalizer
// definitions (their fingerprint, comments and whitespace aside) and rows computed by its normalizer rules (the rules
// version). Migrations and rules versions are ordered; fingerprints are not, so the migrator also records which
// release applied the definitions, and releases are ordered by their version (major.minor.patch, a pre-release
// before its release). Definitions applied by a newer release, or rows computed by a newer rules version, are a
// downgrade; anything older (or unrecorded) is merely outdated.
import type { ClientBase } from 'pg';

export interface RequiredSchema {
  /** The migration versions this release ships, ascending. */
  readonly versions: readonly number[];
  readonly normalizerChecksum: string;
  /** The rules version of this release's normalizer (normalizer/RULES_VERSION); null for definitions without one. */
  readonly normalizerRulesVersion: number | null;
  /** This release's version, e.g. `0.2.0` (the package version of @workflow-index/postgresql). */
  readonly release: string;
}

export interface AppliedNormalizer {
  readonly checksum: string;
  /** The release that applied them; null when applied by a release that did not record itself. */
  readonly release: string | null;
  /** The rules version that computed the normalized rows; null when none was recorded. */
  readonly rulesVersion: number | null;
}

export type SchemaState =
  | { readonly readable: false; readonly why: 'no-schema' | 'no-privilege' }
  | { readonly readable: true; readonly applied: readonly number[]; readonly normalizer: AppliedNormalizer | null };

export type SchemaVerdict =
  | { readonly status: 'current' }
  /** The init job of this release brings the database up to date. */
  | { readonly status: 'older'; readonly reason: string }
  /** A newer release migrated the database: this release must not write to it nor start serving it. */
  | { readonly status: 'newer'; readonly reason: string };

export const SCHEMA_HISTORY_TABLE = 'workflow_index.schema_migrations';
export const NORMALIZER_HISTORY_TABLE = 'workflow_index.normalizer_definitions';

export function schemaVersionOf(required: RequiredSchema): number {
  return required.versions.at(-1) ?? 0;
}

/** What the connected login can see of the migration history; never throws for a missing or unreadable history. */
export async function readSchemaState(client: ClientBase): Promise<SchemaState> {
  const tables = await client.query<{ m: string | null; n: string | null }>(
    `SELECT to_regclass('${SCHEMA_HISTORY_TABLE}')::text AS m, to_regclass('${NORMALIZER_HISTORY_TABLE}')::text AS n`,
  );
  const row = tables.rows[0];
  if (!row?.m) return { readable: false, why: 'no-schema' };
  // (Checked before reading: a SELECT without the privilege would abort the caller's transaction.)
  const privileges = await client.query<{ m: boolean; n: boolean | null }>(
    `SELECT has_table_privilege($1::text, 'SELECT') AS m, CASE WHEN $2::text IS NULL THEN NULL ELSE has_table_privilege($2::text, 'SELECT') END AS n`,
    [row.m, row.n],
  );
  if (!privileges.rows[0]?.m || privileges.rows[0].n === false) return { readable: false, why: 'no-privilege' };
  const applied = await client.query<{ version: number }>(`SELECT version FROM ${SCHEMA_HISTORY_TABLE} ORDER BY version`);
  let normalizer: AppliedNormalizer | null = null;
  if (row.n) {
    // to_jsonb: the release and rules_version columns exist only where a migrator that records them ran.
    const res = await client.query<{ r: { checksum: string; release?: string | null; rules_version?: number | null } }>(
      `SELECT to_jsonb(n) AS r FROM ${NORMALIZER_HISTORY_TABLE} n`,
    );
    const r = res.rows[0]?.r;
    if (r) normalizer = { checksum: r.checksum, release: r.release ?? null, rulesVersion: r.rules_version ?? null };
  }
  return { readable: true, applied: applied.rows.map((a) => a.version), normalizer };
}

/** The verdict, with a reason an operator can act on. Migrations first: they decide whether reads can work at all. */
export function compareSchema(required: RequiredSchema, state: SchemaState): SchemaVerdict {
  const needed = schemaVersionOf(required);
  if (!state.readable) {
    return {
      status: 'older',
      reason: state.why === 'no-schema'
        ? `schema version ${needed} needed, database has no schema: run the init job`
        : `schema version ${needed} needed, the login cannot read ${SCHEMA_HISTORY_TABLE} (the init job of this release grants it to workflow_index_reader): run the init job`,
    };
  }
  const known = new Set(required.versions);
  const unknown = state.applied.filter((v) => !known.has(v));
  const at = state.applied.at(-1) ?? 0;
  if (unknown.length > 0) {
    return { status: 'newer', reason: `database schema ${at} is newer than this release knows (${needed}): refusing (downgrade)` };
  }
  const done = new Set(state.applied);
  if (required.versions.some((v) => !done.has(v))) {
    return { status: 'older', reason: `schema version ${needed} needed, database is at ${at}: run the init job` };
  }
  const normalizer = state.normalizer;
  const rules = required.normalizerRulesVersion;
  if (normalizer?.checksum === required.normalizerChecksum && normalizer.rulesVersion === rules) return { status: 'current' };
  if (normalizer?.rulesVersion != null && rules !== null && normalizer.rulesVersion > rules) {
    return {
      status: 'newer',
      reason: `database rows were normalized by rules version ${normalizer.rulesVersion}, newer than this release's (${rules}): refusing (downgrade)`,
    };
  }
  if (normalizer?.release != null && compareReleases(normalizer.release, required.release) > 0) {
    return {
      status: 'newer',
      reason: `database normalizer definitions are of release ${normalizer.release}, newer than this release (${required.release}): refusing (downgrade)`,
    };
  }
  if (normalizer?.checksum === required.normalizerChecksum) {
    const by = normalizer.rulesVersion === null ? 'rules of no recorded version' : `rules version ${normalizer.rulesVersion}`;
    return { status: 'older', reason: `rows normalized by rules version ${rules ?? 'none'} needed, database has rows normalized by ${by}: run the init job` };
  }
  const has = normalizer === null ? 'none' : normalizer.release === null ? 'older ones' : `those of release ${normalizer.release}`;
  return { status: 'older', reason: `normalizer definitions of release ${required.release} needed, database has ${has}: run the init job` };
}

interface ParsedRelease {
  readonly core: readonly [number, number, number];
  readonly pre: string | null;
}

function parseRelease(release: string): ParsedRelease | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(release.trim());
  if (!match) return null;
  return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] ?? null };
}

/**
 * Orders two release versions: negative, 0 or positive. Pre-release identifiers compare per dot-separated part
 * (numbers numerically, below words), as semver orders them. An unparsable version orders below every parsable one,
 * so a database marked by something unknown never blocks a real release.
 */
export function compareReleases(a: string, b: string): number {
  const x = parseRelease(a);
  const y = parseRelease(b);
  if (x === null || y === null) return (x === null ? 0 : 1) - (y === null ? 0 : 1);
  for (let i = 0; i < 3; i++) {
    const d = x.core[i]! - y.core[i]!;
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  const xs = x.pre.split('.');
  const ys = y.pre.split('.');
  for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
    const p = xs[i];
    const q = ys[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Math.sign(Number(p) - Number(q));
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

/** Whether the server may serve: the reason it may not, or null. */
export interface SchemaGateState {
  readonly verdict: SchemaVerdict | null;
  readonly blocking: string | null;
}

export interface SchemaVersionGateOptions {
  readonly required: RequiredSchema;
  /** Reads the database's state and compares it (one short query over the server's pool). */
  readonly check: () => Promise<SchemaVerdict>;
  /** How often the schema is checked while it matches; while it does not, every readiness probe checks it. */
  readonly intervalMs: number;
  readonly onChange?: (state: SchemaGateState, previous: SchemaGateState) => void;
}

/**
 * Keeps the server from serving a schema it does not know. Until the database matches this release, readiness is
 * DOWN with the reason and queries are refused. Once it matched, a newer schema is an upgrade in progress (the new
 * release's init job ran before this pod was replaced): this server keeps serving, since a release's migrations keep
 * the previous release's reads working, whereas a server that starts against a newer schema is a downgrade and
 * never serves. An older schema (a restored backup) stops serving at any time.
 */
export class SchemaVersionGate {
  readonly #options: SchemaVersionGateOptions;
  #verdict: SchemaVerdict | null = null;
  #matched = false;
  #lastError: string | null = null;
  #inflight: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SchemaVersionGateOptions) {
    this.#options = options;
  }

  get state(): SchemaGateState {
    return { verdict: this.#verdict, blocking: this.blocking() };
  }

  /** The reason serving is refused, or null. */
  blocking(): string | null {
    const verdict = this.#verdict;
    if (verdict === null) {
      return `schema version ${schemaVersionOf(this.#options.required)} needed, not checked yet${this.#lastError === null ? '' : `: ${this.#lastError}`}`;
    }
    if (verdict.status === 'current' || (verdict.status === 'newer' && this.#matched)) return null;
    return verdict.reason;
  }

  /** Checks now (one check at a time; concurrent callers share it). A failed check keeps the previous verdict. */
  refresh(): Promise<void> {
    return (this.#inflight ??= this.#check().finally(() => (this.#inflight = undefined)));
  }

  /** Checks at start and then every intervalMs (the timer does not keep the process alive). */
  async start(): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#options.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #check(): Promise<void> {
    const previous = this.state;
    try {
      this.#verdict = await this.#options.check();
      this.#lastError = null;
      if (this.#verdict.status === 'current') this.#matched = true;
    } catch (error) {
      this.#lastError = error instanceof Error ? error.message : String(error);
    }
    const now = this.state;
    if (now.blocking !== previous.blocking || now.verdict?.status !== previous.verdict?.status) this.#options.onChange?.(now, previous);
  }
}
