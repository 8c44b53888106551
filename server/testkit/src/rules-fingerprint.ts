// One rule-version policy for both backends. Each backend names the version of its normalization rules by hand
// (PostgreSQL: server/postgresql/normalizer/RULES_VERSION; OpenSearch: RULES_VERSION in
// server/opensearch/src/normalizer-rules-version.ts) and has a recorded fingerprint of its rule sources, taken
// without comments and whitespace (a JSON file beside them, written by `npm run rules:record`). A new version makes
// the backend re-normalize what it stored (PostgreSQL: the migrator rebuilds every row; OpenSearch: the normalizer's
// background walk). The check below is part of `npm test`: sources whose fingerprint differs from the recorded one
// under the same version are a rule change without its bump. A change that computes the same results (a faster
// function, a renamed variable) is recorded under the same version with a reason, deliberately.
import { readFileSync, writeFileSync } from 'node:fs';

/** What a backend's rule sources come to now. */
export interface RulesFingerprint {
  readonly rulesVersion: number;
  /** One fingerprint over every source. */
  readonly fingerprint: string;
  /** Each source's fingerprint, by its name. */
  readonly files: Readonly<Record<string, string>>;
}

/** The recorded fingerprint, as the JSON file holds it. */
export interface RecordedRulesFingerprint extends RulesFingerprint {
  /** Why the last change was recorded without a new version (the results are the same), if it was. */
  readonly sameResults?: string;
}

export interface BackendRules {
  /** `PostgreSQL`, `OpenSearch`. */
  readonly backend: string;
  /** Where the version is bumped (a path the developer edits). */
  readonly versionPlace: string;
  /** The record's path. */
  readonly recordFile: string;
  readonly current: RulesFingerprint;
}

/** The command that records a backend's fingerprint. */
export const RECORD_COMMAND = 'npm run rules:record';

export class RulesFingerprintError extends Error {
  override readonly name = 'RulesFingerprintError';
}

/** The record of a backend, or null when there is none. */
export function readRulesRecord(recordFile: string): RecordedRulesFingerprint | null {
  let text: string;
  try {
    text = readFileSync(recordFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<RecordedRulesFingerprint>;
  if (typeof parsed.rulesVersion !== 'number' || typeof parsed.fingerprint !== 'string' || typeof parsed.files !== 'object' || parsed.files === null) {
    throw new RulesFingerprintError(`${recordFile}: not a rules fingerprint record (rulesVersion, fingerprint, files); run \`${RECORD_COMMAND}\``);
  }
  return parsed as RecordedRulesFingerprint;
}

/** Which sources differ between the record and now, in words ("changed: a.sql; added: b.sql"). */
export function changedSources(recorded: RulesFingerprint, current: RulesFingerprint): string {
  const before = recorded.files;
  const now = current.files;
  const changed = Object.keys(now).filter((name) => name in before && before[name] !== now[name]);
  const added = Object.keys(now).filter((name) => !(name in before));
  const removed = Object.keys(before).filter((name) => !(name in now));
  const parts = [['changed', changed], ['added', added], ['removed', removed]] as const;
  const said = parts.filter(([, names]) => names.length > 0).map(([what, names]) => `${what}: ${[...names].sort().join(', ')}`);
  return said.length > 0 ? said.join('; ') : 'the order of the sources';
}

/**
 * Why the backend's rule sources and their record disagree, naming the backend and what to do; null when they agree.
 * This is the check `npm test` runs for each backend.
 */
export function rulesFingerprintProblem(rules: BackendRules, recorded: RecordedRulesFingerprint | null = readRulesRecord(rules.recordFile)): string | null {
  const { backend, current, versionPlace } = rules;
  if (recorded === null) return `${backend} normalization rules: no recorded fingerprint (${rules.recordFile}): run \`${RECORD_COMMAND}\``;
  if (current.rulesVersion < recorded.rulesVersion) {
    return `${backend} normalization rules: the rules version went down to ${current.rulesVersion} (recorded ${recorded.rulesVersion}, ${versionPlace}); a version is never reused`;
  }
  if (current.rulesVersion > recorded.rulesVersion) {
    return `${backend} normalization rules: the rules version is now ${current.rulesVersion}, recorded ${recorded.rulesVersion}: run \`${RECORD_COMMAND}\``;
  }
  if (current.fingerprint === recorded.fingerprint) return null;
  return (
    `${backend} normalization rules changed without a rules version bump (${changedSources(recorded, current)}; comments and whitespace do not count). ` +
    `A rule change must re-normalize what is stored: bump the version in ${versionPlace}, then run \`${RECORD_COMMAND}\`. ` +
    `If the change computes exactly the same results, record that instead: \`${RECORD_COMMAND} -- --same-results "<why>"\``
  );
}

export type RecordOutcome = 'unchanged' | 'recorded';

/**
 * Writes the current fingerprint as the record. Refused (RulesFingerprintError, nothing written) when the sources
 * changed under the recorded version, unless `sameResults` says why the results do not change; and when the version
 * went down.
 */
export function recordRulesFingerprint(rules: BackendRules, options: { readonly sameResults?: string } = {}): RecordOutcome {
  const recorded = readRulesRecord(rules.recordFile);
  const { current } = rules;
  if (recorded !== null && recorded.rulesVersion === current.rulesVersion && recorded.fingerprint === current.fingerprint) return 'unchanged';
  const sameVersion = recorded !== null && current.rulesVersion === recorded.rulesVersion;
  const reason = options.sameResults?.trim() ?? '';
  if ((recorded !== null && current.rulesVersion < recorded.rulesVersion) || (sameVersion && reason === '')) {
    throw new RulesFingerprintError(rulesFingerprintProblem(rules, recorded)!);
  }
  const record: RecordedRulesFingerprint & { readonly about: string } = {
    about: `The fingerprint of the ${rules.backend} normalization rules (comments and whitespace aside) at their rules version (${rules.versionPlace}). Written by \`${RECORD_COMMAND}\`, checked by npm test.`,
    rulesVersion: current.rulesVersion,
    fingerprint: current.fingerprint,
    ...(sameVersion ? { sameResults: reason } : {}),
    files: Object.fromEntries(Object.entries(current.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  writeFileSync(rules.recordFile, `${JSON.stringify(record, null, 2)}\n`);
  return 'recorded';
}
