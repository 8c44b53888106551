// Renders our kustomizations with `kubectl kustomize` (offline) for the tests. kubectl is required in CI;
// elsewhere a missing kubectl skips the suites with a message.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> };
  readonly [field: string]: unknown;
}

/** The overlays of the PostgreSQL backend (fluent-bit/postgresql is deployed by these). */
export const OVERLAYS = ['postgresql', 'kind'] as const;
/** The overlays of the OpenSearch backend (fluent-bit/opensearch). */
export const OPENSEARCH_OVERLAYS = ['opensearch', 'kind-opensearch'] as const;
export const ALL_OVERLAYS = [...OVERLAYS, ...OPENSEARCH_OVERLAYS] as const;
/** The production overlays (Secrets created by the operator, none in the render). */
export const PRODUCTION_OVERLAYS: readonly string[] = ['postgresql', 'opensearch'];
export const COMPONENTS = ['backend-postgresql', 'dev-postgresql', 'backend-opensearch', 'dev-opensearch', 'release-named-migration', 'service-monitor', 'workflows-namespace', 'auth-oidc'] as const;

let available: boolean | undefined;
export function kubectlAvailable(): boolean {
  if (available !== undefined) return available;
  const result = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  available = result.status === 0;
  if (!available) {
    if (process.env['CI'] === 'true') throw new Error('kubectl is required in CI to render the kustomizations');
    console.warn('[skip] kustomize suites skipped: no kubectl on PATH (kubectl kustomize renders the manifests offline)');
  }
  return available;
}

export function parseObjects(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0]!.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** `kubectl kustomize <dir>`; dir relative to the repository root. */
export function render(dir: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', join(REPO_ROOT, dir)], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr}`);
  return parseObjects(result.stdout, dir);
}

/** Renders a throw-away kustomization of the given resources and components (paths relative to the repo root). */
export function renderCombination(resources: readonly string[], components: readonly string[]): K8sObject[] {
  const dir = mkdtempSync(join(tmpdir(), 'wi-kustomize-'));
  try {
    // kustomize refuses absolute paths; relative ones may leave the kustomization root.
    const rel = (p: string): string => relative(dir, join(REPO_ROOT, p));
    writeFileSync(join(dir, 'kustomization.yaml'), [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:', ...resources.map((r) => `  - ${rel(r)}`),
      'components:', ...components.map((c) => `  - ${rel(c)}`),
      '',
    ].join('\n'));
    const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`kubectl kustomize of ${[...resources, ...components].join(', ')} failed: ${result.stderr}`);
    return parseObjects(result.stdout, `base + ${components.join(' + ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function objectId(o: K8sObject): string {
  return `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/** Names without kustomize's content-hash suffix (`-` and 10 characters of [a-z0-9]). */
export function baseName(name: string): string {
  return name.replace(/-[bcdfghkmt2-9]{10}$/, '');
}
