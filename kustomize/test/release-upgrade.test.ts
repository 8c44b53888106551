// The documented upgrade to a release other than the one the manifests pin (docs/deployment.md, "Upgrades"), built
// from the page's own snippets: the release component and the overlay that lists it. Every image of ours, in every
// workload of either backend (servers and their wait-for-schema init container, normalizer, init Job, prune
// CronJob), must carry the new tag, and the migration Job must be named after the same release: a server left on the
// old tag refuses the database the Job migrated.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Backend, RELEASE_VERSION, imageBuildsFor } from '../../e2e/support/images.js';
import { docSnippet } from './support/doc-snippets.js';
import { type K8sObject, REPO_ROOT, kubectlAvailable, parseObjects } from './support/kustomize-render.js';
import { allContainers, workloads } from './support/pod-specs.js';

const DOC = 'docs/deployment.md';
const component = docSnippet(DOC, 'release-component');
const overlay = docSnippet(DOC, 'release-overlay');
const newTags = (parse(component) as { images: { name: string; newTag?: string }[] }).images.map((i) => String(i.newTag));
const NEW_TAG = newTags[0]!;

interface Variant {
  readonly backend: Backend;
  /** Uncomment the optional prune-cronjob line of the snippet. */
  readonly prune: boolean;
}

/** The overlay snippet with its paths pointing at this checkout, for one backend. */
function overlayFor(dir: string, variant: Variant): string {
  const checkout = `${relative(dir, REPO_ROOT)}/`;
  let text = overlay.replaceAll('../workflow-index/', checkout);
  if (variant.backend === 'opensearch') text = text.replace('components/backend-postgresql', 'components/backend-opensearch');
  if (variant.prune) text = text.replace(/^(\s*)# (- \S+\/components\/prune-cronjob)/m, '$1$2');
  return text;
}

function renderDocumented(variant: Variant): K8sObject[] {
  const root = mkdtempSync(join(tmpdir(), 'wi-upgrade-'));
  try {
    mkdirSync(join(root, 'my-release'));
    mkdirSync(join(root, 'my-workflow-index'));
    writeFileSync(join(root, 'my-release', 'kustomization.yaml'), component);
    writeFileSync(join(root, 'my-workflow-index', 'kustomization.yaml'), overlayFor(join(root, 'my-workflow-index'), variant));
    const result = spawnSync('kubectl', ['kustomize', join(root, 'my-workflow-index')], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`kubectl kustomize of the documented upgrade failed: ${result.stderr}`);
    return parseObjects(result.stdout, `documented upgrade (${variant.backend})`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** workload id / container name → image, for every container and init container that runs an image of ours. */
function ourImages(objects: readonly K8sObject[]): Map<string, string> {
  const images = new Map<string, string>();
  for (const w of workloads(objects)) {
    for (const { container } of allContainers(w.spec)) {
      if (container.image?.includes('workflow-index/')) images.set(`${w.id}/${container.name}`, container.image);
    }
  }
  for (const cron of objects.filter((o) => o.kind === 'CronJob')) {
    const spec = (cron['spec'] as { jobTemplate: { spec: { template: { spec: Parameters<typeof allContainers>[0] } } } }).jobTemplate.spec.template.spec;
    for (const { container } of allContainers(spec)) {
      if (container.image?.includes('workflow-index/')) images.set(`CronJob/${cron.metadata.name}/${container.name}`, container.image);
    }
  }
  return images;
}

describe('the documented release component', () => {
  it('sets one new tag, other than the pinned release, for every image built here', () => {
    expect(new Set(newTags)).toEqual(new Set([NEW_TAG]));
    expect(NEW_TAG).not.toBe(RELEASE_VERSION);
    const names = (parse(component) as { images: { name: string }[] }).images.map((i) => i.name).sort();
    expect(names).toEqual([...new Set([...imageBuildsFor('postgresql'), ...imageBuildsFor('opensearch')].map((b) => b.image.split(':')[0]!))].sort());
  });

  it('is listed by the documented overlay after the backend components and before release-named-migration', () => {
    const components = (parse(overlay) as { components: string[] }).components;
    const at = (suffix: string): number => components.findIndex((c) => c.endsWith(suffix));
    expect(at('/backend-postgresql')).toBeGreaterThanOrEqual(0);
    expect(at('../my-release')).toBeGreaterThan(at('/backend-postgresql'));
    expect(components.at(-1)).toMatch(/\/release-named-migration$/);
  });
});

const VARIANTS: Variant[] = [
  { backend: 'postgresql', prune: false },
  { backend: 'postgresql', prune: true },
  { backend: 'opensearch', prune: false },
];

describe.skipIf(!kubectlAvailable())('the documented upgrade, rendered', () => {
  it.each(VARIANTS)('$backend (prune-cronjob: $prune): every image of ours carries the new tag, and the Job and servers agree', (variant) => {
    const objects = renderDocumented(variant);
    const images = ourImages(objects);
    // Every image the backend runs is there, under its own name, with the new tag.
    expect(new Set(images.values())).toEqual(new Set(imageBuildsFor(variant.backend).map((b) => b.image.replace(/:[^:]+$/, `:${NEW_TAG}`))));
    const stale = [...images].filter(([, image]) => !image.endsWith(`:${NEW_TAG}`));
    expect(stale).toEqual([]);
    // The workloads the upgrade must move together.
    const keys = [...images.keys()];
    expect(keys).toContain('Deployment/workflow-index-server/server');
    if (variant.backend === 'postgresql') expect(keys).toContain('Deployment/workflow-index-server/wait-for-schema');
    if (variant.backend === 'opensearch') expect(keys).toContain('StatefulSet/workflow-index-normalizer/normalizer');
    if (variant.prune) expect(keys.some((k) => k.startsWith('CronJob/'))).toBe(true);
    const jobs = objects.filter((o) => o.kind === 'Job');
    expect(jobs.map((j) => j.metadata.name)).toEqual([`workflow-index-migrate-${NEW_TAG}`]);
    const jobImage = [...images].find(([k]) => k.startsWith(`Job/${jobs[0]!.metadata.name}/`))![1];
    const serverImage = images.get('Deployment/workflow-index-server/server')!;
    expect(jobImage.split(':').at(-1)).toBe(serverImage.split(':').at(-1));
  });
});
