// The images of this repository: how they are built and the names the manifests use. The kind suite builds
// exactly these; kustomize/test/images.test.ts checks the Dockerfiles and manifests agree with them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT_PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));
export const RELEASE_VERSION = (JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')) as { version: string }).version;

export type Backend = 'postgresql' | 'opensearch';

export interface ImageBuild {
  readonly dockerfile: string;
  readonly target?: string;
  readonly image: string;
  /** The backends whose overlays run this image. */
  readonly backends: readonly Backend[];
}

export const IMAGE_BUILDS: readonly ImageBuild[] = [
  { dockerfile: 'Dockerfile.server', target: 'postgresql', image: `workflow-index/server-postgresql:${RELEASE_VERSION}`, backends: ['postgresql'] },
  { dockerfile: 'Dockerfile.server', target: 'opensearch', image: `workflow-index/server-opensearch:${RELEASE_VERSION}`, backends: ['opensearch'] },
  { dockerfile: 'Dockerfile.server', target: 'opensearch-normalizer', image: `workflow-index/normalizer-opensearch:${RELEASE_VERSION}`, backends: ['opensearch'] },
  { dockerfile: 'Dockerfile.init', image: `workflow-index/init:${RELEASE_VERSION}`, backends: ['postgresql', 'opensearch'] },
];

/** The images an overlay of this backend runs. */
export function imageBuildsFor(backend: Backend): ImageBuild[] {
  return IMAGE_BUILDS.filter((b) => b.backends.includes(backend));
}

/** `docker build` arguments for one image, context = repository root. */
export function dockerBuildArgs(build: ImageBuild): string[] {
  return ['build', '-f', build.dockerfile, ...(build.target ? ['--target', build.target] : []), '-t', build.image, '.'];
}
