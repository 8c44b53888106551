// Which node `npm run start:opensearch` uses: the configured one, a container where Docker answers, the local
// distribution where a JDK >= 21 is (and the distribution is cached or mvn and unzip can fetch it), else one message
// listing what is missing for each way. The probes stand for the machine; the choice is the code under test.
import { describe, expect, it } from 'vitest';
import { DEV_CONTAINER_IMAGE, type NodeProbes, chooseNodeSource } from '../src/dev/node-source.js';
import { machineProbes } from '../src/dev/dev-node.js';
import { OPENSEARCH_VERSION } from '../src/local-node-distribution.js';

const JAVA = { path: '/usr/lib/jvm/temurin-25-jdk-amd64', major: 25, source: '/usr/lib/jvm' };
const NO_JAVA = 'OpenSearch 3.x needs Java >= 21 and none was found (looked at: /usr/lib/jvm/java-17-openjdk-amd64 (Java 17))';

function probes(overrides: Partial<{ docker: string | undefined; java: typeof JAVA | { problem: string }; cached: boolean; missing: string[] }> = {}): NodeProbes & { calls: string[] } {
  const calls: string[] = [];
  const docker = 'docker' in overrides ? overrides.docker : 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock';
  return {
    calls,
    dockerProblem: () => (calls.push('docker'), docker),
    javaHome: () => (calls.push('java'), overrides.java ?? JAVA),
    distributionCached: () => (calls.push('cache'), overrides.cached ?? true),
    missingCommands: () => (calls.push('path'), overrides.missing ?? []),
  };
}

describe('start:opensearch: the node choice', () => {
  it('uses the node OPENSEARCH_* names, without probing anything', () => {
    const p = probes({ docker: undefined });
    const choice = chooseNodeSource({ OPENSEARCH_HOST: 'search.example', OPENSEARCH_PORT: '9201', OPENSEARCH_PROTOCOL: 'http' }, p);
    expect(choice).toEqual({ kind: 'configured', settings: { node: 'http://search.example:9201', nodes: ['http://search.example:9201'], username: undefined, password: undefined, caFile: undefined }, reason: 'OPENSEARCH_HOST is set' });
    expect(p.calls).toEqual([]);
  });

  it('reports every invalid OpenSearch setting at once', () => {
    const choice = chooseNodeSource({ OPENSEARCH_HOST: 'h', OPENSEARCH_PORT: 'x', OPENSEARCH_PROTOCOL: 'ftp' }, probes());
    expect(choice.kind).toBe('missing');
    const message = choice.kind === 'missing' ? choice.message : '';
    expect(message).toContain('OPENSEARCH_PORT must be a port number (1-65535), got "x"');
    expect(message).toContain('OPENSEARCH_PROTOCOL must be http or https, got "ftp"');
  });

  it('starts a container of the pinned image where a Docker engine answers', () => {
    const p = probes({ docker: undefined });
    expect(chooseNodeSource({}, p)).toEqual({ kind: 'container', image: `opensearchproject/opensearch:${OPENSEARCH_VERSION}`, reason: 'a Docker engine answers' });
    expect(DEV_CONTAINER_IMAGE).toBe('opensearchproject/opensearch:3.8.0');
    expect(p.calls).toEqual(['docker']);
  });

  it('runs the local distribution with the JDK found when Docker does not answer', () => {
    const p = probes();
    expect(chooseNodeSource({}, p)).toEqual({ kind: 'local', java: JAVA, reason: 'no Docker engine answers; a JDK >= 21 is there' });
    // The distribution is cached: mvn and unzip are not needed, so their absence does not matter.
    expect(p.calls).toEqual(['docker', 'java', 'cache']);
    expect(chooseNodeSource({}, probes({ cached: true, missing: ['mvn', 'unzip'] })).kind).toBe('local');
  });

  it('needs mvn and unzip only when the distribution must be fetched', () => {
    const choice = chooseNodeSource({}, probes({ cached: false, missing: ['mvn'] }));
    expect(choice.kind).toBe('missing');
    expect(choice.kind === 'missing' && choice.message).toContain('needs `mvn` on the PATH (Debian: apt-get install maven)');
  });

  it('says what is missing for each way when neither works', () => {
    const choice = chooseNodeSource({}, probes({ java: { problem: NO_JAVA }, cached: false, missing: ['mvn', 'unzip'] }));
    expect(choice).toEqual({
      kind: 'missing',
      message: [
        'development mode needs an OpenSearch node and cannot start one:',
        `  - container (opensearchproject/opensearch:${OPENSEARCH_VERSION}): no Docker engine answers: Cannot connect to the Docker daemon at unix:///var/run/docker.sock`,
        `  - local distribution (OpenSearch ${OPENSEARCH_VERSION}): ${NO_JAVA}`,
        `  - local distribution (OpenSearch ${OPENSEARCH_VERSION}): fetching OpenSearch ${OPENSEARCH_VERSION} from Maven Central needs \`mvn\` and \`unzip\` on the PATH (Debian: apt-get install maven unzip)`,
        'Fix one of these, or point OPENSEARCH_HOST (and OPENSEARCH_PORT, OPENSEARCH_PROTOCOL, OPENSEARCH_USERNAME/PASSWORD) at a running OpenSearch.',
      ].join('\n'),
    });
  });

  it('DEV_OPENSEARCH_NODE forces a way and reports its failure instead of falling back', () => {
    const local = probes({ docker: undefined });
    expect(chooseNodeSource({ DEV_OPENSEARCH_NODE: 'local' }, local).kind).toBe('local');
    expect(local.calls).not.toContain('docker');
    const container = chooseNodeSource({ DEV_OPENSEARCH_NODE: 'container' }, probes());
    expect(container).toEqual({
      kind: 'missing',
      message: 'DEV_OPENSEARCH_NODE=container, but no Docker engine answers: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Start Docker, or unset DEV_OPENSEARCH_NODE to run the local distribution.',
    });
    const onlyLocal = chooseNodeSource({ DEV_OPENSEARCH_NODE: 'local' }, probes({ java: { problem: NO_JAVA } }));
    expect(onlyLocal.kind === 'missing' && onlyLocal.message).not.toContain('container');
    expect(chooseNodeSource({ DEV_OPENSEARCH_NODE: 'podman' }, probes())).toEqual({ kind: 'missing', message: 'DEV_OPENSEARCH_NODE must be one of auto, container, local, got "podman"' });
  });

  it('probes this machine for real: docker info, the JDK search, the PATH', () => {
    const machine = machineProbes({ PATH: process.env['PATH'], JAVA_HOME: '/nonexistent-jdk' });
    const docker = machine.dockerProblem();
    expect(docker === undefined || docker.length > 0).toBe(true);
    const java = machine.javaHome();
    // Either a JDK >= 21 was found under /usr/lib/jvm, or the message names the rejected JAVA_HOME.
    if ('problem' in java) expect(java.problem).toContain('JAVA_HOME=/nonexistent-jdk (no JDK there)');
    else expect(java.major).toBeGreaterThanOrEqual(21);
    expect(machine.missingCommands()).not.toContain('sh');
    expect(machineProbes({}).missingCommands().every((c) => c === 'mvn' || c === 'unzip')).toBe(true);
  });
});
