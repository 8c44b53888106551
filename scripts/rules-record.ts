// npm run rules:record [-- --backend postgresql|opensearch] [--same-results "<why>"]
// Records the fingerprint of each backend's normalization rules after a deliberate rules version bump (the check in
// `npm test` fails until it is recorded). Refuses, writing nothing for that backend, when a backend's rules changed
// under the same version, unless --same-results says why the change computes exactly the same results.
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { postgresqlRules } from '@workflow-index/postgresql/testing';
import { openSearchRules } from '@workflow-index/opensearch/testing';
import { type BackendRules, recordRulesFingerprint, RulesFingerprintError } from '@workflow-index/testkit';

const BACKENDS: Readonly<Record<string, () => BackendRules>> = { postgresql: postgresqlRules, opensearch: openSearchRules };

const USAGE = 'usage: npm run rules:record [-- --backend postgresql|opensearch] [--same-results "<why>"]';
const { values } = (() => {
  try {
    return parseArgs({ options: { backend: { type: 'string', multiple: true }, 'same-results': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`rules:record: ${(error as Error).message}\n${USAGE}`);
    return process.exit(2);
  }
})();
if (values.help === true) {
  console.log(USAGE);
  process.exit(0);
}
const names = values.backend ?? Object.keys(BACKENDS);
const unknown = names.filter((name) => !(name in BACKENDS));
if (unknown.length > 0) {
  console.error(`rules:record: unknown backend ${unknown.join(', ')} (${Object.keys(BACKENDS).join(', ')})`);
  process.exit(2);
}

let failed = false;
for (const name of names) {
  const rules = BACKENDS[name]!();
  try {
    const outcome = recordRulesFingerprint(rules, values['same-results'] === undefined ? {} : { sameResults: values['same-results'] });
    console.log(`${rules.backend}: rules version ${rules.current.rulesVersion}, ${outcome === 'recorded' ? `recorded in ${relative(process.cwd(), rules.recordFile)}` : 'already recorded'}`);
  } catch (error) {
    if (!(error instanceof RulesFingerprintError)) throw error;
    console.error(error.message);
    failed = true;
  }
}
process.exitCode = failed ? 1 : 0;
