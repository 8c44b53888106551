// Which OpenSearch development mode runs against, decided once at start-up, in this order:
//   1. the one the environment names (OPENSEARCH_HOST and the other CONTRACT §4 settings): nothing is started;
//   2. a container of the pinned image, where a Docker engine answers (`docker info` succeeds);
//   3. the pinned distribution run locally (the code of `npm run opensearch -- start`), where a JDK >= 21 is found
//      and the distribution is cached or can be fetched (mvn and unzip on the PATH);
//   4. none: one message that lists what is missing for each way, so a newcomer fixes it in one round.
// DEV_OPENSEARCH_NODE=container|local forces a way (its failure is then reported, not skipped). The probes are
// passed in, so the choice itself is a pure function the unit test drives through every branch.
import { OPENSEARCH_VERSION } from '../local-node-distribution.js';
import type { JavaHome } from '../local-node-java.js';
import { type OpenSearchConnectionSettings, openSearchConnectionSettings } from '../opensearch-connection-settings.js';

/** The image matching the Maven distribution the local node runs (same version, same behaviour). */
export const DEV_CONTAINER_IMAGE = `opensearchproject/opensearch:${OPENSEARCH_VERSION}`;
export const NODE_CHOICE_ENV = 'DEV_OPENSEARCH_NODE';
const CHOICES = ['auto', 'container', 'local'] as const;
type Requested = (typeof CHOICES)[number];

export interface NodeProbes {
  /** Undefined when `docker info` succeeds, else why not (command missing, daemon not running, …). */
  dockerProblem(): string | undefined;
  /** A JDK >= 21, or why none was found (local-node-java.ts's message). */
  javaHome(): JavaHome | { readonly problem: string };
  /** True when the pinned distribution is already unzipped or its archive sits in ~/.m2. */
  distributionCached(): boolean;
  /** Which of the commands needed to fetch and unpack the distribution are not on the PATH. */
  missingCommands(): string[];
}

export type NodeChoice =
  | { readonly kind: 'configured'; readonly settings: OpenSearchConnectionSettings; readonly reason: string }
  | { readonly kind: 'container'; readonly image: string; readonly reason: string }
  | { readonly kind: 'local'; readonly java: JavaHome; readonly reason: string }
  | { readonly kind: 'missing'; readonly message: string };

const DEBIAN_PACKAGE: Readonly<Record<string, string>> = { mvn: 'maven', unzip: 'unzip' };

function localProblems(probes: NodeProbes): { java?: JavaHome; problems: string[] } {
  const problems: string[] = [];
  const java = probes.javaHome();
  if ('problem' in java) problems.push(java.problem);
  if (!probes.distributionCached()) {
    const missing = probes.missingCommands();
    if (missing.length > 0) {
      problems.push(`fetching OpenSearch ${OPENSEARCH_VERSION} from Maven Central needs ${missing.map((c) => `\`${c}\``).join(' and ')} on the PATH (Debian: apt-get install ${missing.map((c) => DEBIAN_PACKAGE[c] ?? c).join(' ')})`);
    }
  }
  return 'problem' in java ? { problems } : { java, problems };
}

export function chooseNodeSource(env: Readonly<Record<string, string | undefined>>, probes: NodeProbes): NodeChoice {
  if ((env['OPENSEARCH_HOST'] ?? '').trim() !== '') {
    const { settings, problems } = openSearchConnectionSettings(env);
    if (settings === null) return { kind: 'missing', message: `the OpenSearch settings are invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}` };
    return { kind: 'configured', settings, reason: 'OPENSEARCH_HOST is set' };
  }
  const requestedText = (env[NODE_CHOICE_ENV] ?? '').trim().toLowerCase() || 'auto';
  if (!(CHOICES as readonly string[]).includes(requestedText)) {
    return { kind: 'missing', message: `${NODE_CHOICE_ENV} must be one of ${CHOICES.join(', ')}, got ${JSON.stringify(env[NODE_CHOICE_ENV])}` };
  }
  const requested = requestedText as Requested;

  let dockerProblem: string | undefined;
  if (requested !== 'local') {
    dockerProblem = probes.dockerProblem();
    if (dockerProblem === undefined) return { kind: 'container', image: DEV_CONTAINER_IMAGE, reason: requested === 'container' ? `${NODE_CHOICE_ENV}=container` : 'a Docker engine answers' };
    if (requested === 'container') {
      return { kind: 'missing', message: `${NODE_CHOICE_ENV}=container, but no Docker engine answers: ${dockerProblem}. Start Docker, or unset ${NODE_CHOICE_ENV} to run the local distribution.` };
    }
  }
  const local = localProblems(probes);
  if (local.java !== undefined && local.problems.length === 0) {
    return { kind: 'local', java: local.java, reason: requested === 'local' ? `${NODE_CHOICE_ENV}=local` : 'no Docker engine answers; a JDK >= 21 is there' };
  }
  const lines = [
    'development mode needs an OpenSearch node and cannot start one:',
    ...(dockerProblem === undefined ? [] : [`  - container (${DEV_CONTAINER_IMAGE}): no Docker engine answers: ${dockerProblem}`]),
    ...local.problems.map((p) => `  - local distribution (OpenSearch ${OPENSEARCH_VERSION}): ${p}`),
    'Fix one of these, or point OPENSEARCH_HOST (and OPENSEARCH_PORT, OPENSEARCH_PROTOCOL, OPENSEARCH_USERNAME/PASSWORD) at a running OpenSearch.',
  ];
  return { kind: 'missing', message: lines.join('\n') };
}
