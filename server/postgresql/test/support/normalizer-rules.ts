// The PostgreSQL normalization rules as the rule-version check sees them: the definition files of a normalizer
// folder, each with its fingerprint (comments and whitespace aside), their fingerprint together (the one the migrator
// records in the database), and the folder's RULES_VERSION.
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BackendRules } from '@workflow-index/testkit';
import { loadNormalizer, MigrationError, NORMALIZER_DIR, RULES_VERSION_FILE } from '../../src/migrator.js';
import { sqlFingerprint } from '../../src/normalizer-fingerprint.js';

/** The record beside the definitions (the server image ships it with them: wait-for-schema reads it). */
export const RULES_FINGERPRINT_FILE = 'rules-fingerprint.json';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The rules of the normalizer folder `dir` (default: this module's). */
export function postgresqlRules(dir: string = NORMALIZER_DIR): BackendRules {
  const normalizer = loadNormalizer(dir);
  const versionFile = join(dir, RULES_VERSION_FILE);
  if (normalizer.rulesVersion === undefined) throw new MigrationError(`${versionFile} is missing: the normalizer's rules have no version`);
  const place = relative(REPO_ROOT, versionFile);
  return {
    backend: 'PostgreSQL',
    versionPlace: place.startsWith('..') ? versionFile : place.split(sep).join('/'),
    recordFile: join(dir, RULES_FINGERPRINT_FILE),
    current: {
      rulesVersion: normalizer.rulesVersion,
      fingerprint: normalizer.checksum,
      files: Object.fromEntries(normalizer.files.map((f) => [f.file, sqlFingerprint(f.sql)])),
    },
  };
}
