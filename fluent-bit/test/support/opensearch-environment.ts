// The environment the DaemonSet gives Fluent Bit on the OpenSearch backend, read from the same files kustomize
// generates its ConfigMaps from (manifests/base/fluent-bit.env, kustomize/components/backend-opensearch/
// opensearch.env), with stand-ins for the Secret values. opensearch-config.test.ts checks the rendered DaemonSet
// provides exactly these names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../kustomize/test/support/kustomize-render.js';

function envFile(path: string): Record<string, string> {
  return Object.fromEntries(readFileSync(join(REPO_ROOT, path), 'utf8').split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

export function openSearchEnvironment(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...envFile('manifests/base/fluent-bit.env'),
    ...envFile('kustomize/components/backend-opensearch/opensearch.env'),
    OPENSEARCH_USERNAME: 'fluent-bit-user',
    OPENSEARCH_PASSWORD: 'fluent-bit-password',
    ...overrides,
  };
}
