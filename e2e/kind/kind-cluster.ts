// A throw-away kind cluster for the end-to-end suite: preflight (Docker engine, kind, kubectl), creation with a
// pinned node image, image build and load, `kubectl apply -k`, and Kubernetes API helpers (@kubernetes/client-node)
// for waiting, deleting pods, exec and port-forwarding.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { AppsV1Api, BatchV1Api, CoreV1Api, Exec, KubeConfig, PortForward, type V1Pod } from '@kubernetes/client-node';
import { type Backend, dockerBuildArgs, imageBuildsFor } from '../support/images.js';
import { REPO_ROOT } from '../support/processes.js';

export const CLUSTER_NAME = 'workflow-index-e2e';
/** kind's node image for Kubernetes 1.31, pinned so the suite does not change under us. */
export const KIND_NODE_IMAGE = 'kindest/node:v1.31.4';

export interface Preflight {
  readonly ok: boolean;
  readonly reason: string;
}

function succeeds(command: string, args: readonly string[]): { ok: boolean; detail: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (result.error) return { ok: false, detail: result.error.message };
  return { ok: result.status === 0, detail: (result.stderr || result.stdout).trim().split('\n').slice(-1)[0] ?? '' };
}

/** Why the suite cannot run here, if it cannot. */
export function preflight(): Preflight {
  if (process.env['WI_E2E_KIND'] !== '1') return { ok: false, reason: 'creating a kind cluster is opt-in: run `npm run e2e:kind`' };
  const docker = succeeds('docker', ['info', '--format', '{{.ServerVersion}}']);
  if (!docker.ok) return { ok: false, reason: `no Docker engine (docker info: ${docker.detail})` };
  const kind = succeeds('kind', ['version']);
  if (!kind.ok) return { ok: false, reason: `no kind binary on PATH (${kind.detail})` };
  const kubectl = succeeds('kubectl', ['version', '--client']);
  if (!kubectl.ok) return { ok: false, reason: `no kubectl on PATH (${kubectl.detail})` };
  return { ok: true, reason: '' };
}

function run(command: string, args: readonly string[], timeoutMs: number, input?: string): string {
  const result = spawnSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, input });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.error?.message}):\n${result.stderr}\n${result.stdout}`);
  }
  return result.stdout;
}

export class KindCluster {
  readonly kubeconfig: string;
  readonly kc = new KubeConfig();
  private readonly dir: string;
  private forwards: Server[] = [];

  private constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'wi-kind-'));
    this.kubeconfig = join(this.dir, 'kubeconfig');
  }

  static create(): KindCluster {
    const cluster = new KindCluster();
    spawnSync('kind', ['delete', 'cluster', '--name', CLUSTER_NAME], { encoding: 'utf8' });
    run('kind', ['create', 'cluster', '--name', CLUSTER_NAME, '--image', KIND_NODE_IMAGE, '--kubeconfig', cluster.kubeconfig, '--wait', '180s'], 10 * 60_000);
    cluster.kc.loadFromFile(cluster.kubeconfig);
    return cluster;
  }

  get core(): CoreV1Api {
    return this.kc.makeApiClient(CoreV1Api);
  }
  get apps(): AppsV1Api {
    return this.kc.makeApiClient(AppsV1Api);
  }
  get batch(): BatchV1Api {
    return this.kc.makeApiClient(BatchV1Api);
  }

  /** Builds this repository's images of one backend and loads them into the nodes (no registry involved). */
  buildAndLoadImages(backend: Backend): void {
    for (const build of imageBuildsFor(backend)) {
      run('docker', dockerBuildArgs(build), 20 * 60_000);
      run('kind', ['load', 'docker-image', build.image, '--name', CLUSTER_NAME], 5 * 60_000);
    }
  }

  kubectl(args: readonly string[], input?: string): string {
    return run('kubectl', ['--kubeconfig', this.kubeconfig, ...args], 5 * 60_000, input);
  }

  async waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    while (Date.now() < deadline) {
      try {
        const value = await probe();
        if (value !== undefined) return value;
      } catch (error) {
        lastError = error;
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}\n${this.diagnostics()}`);
  }

  async waitForJob(namespace: string, name: string, timeoutMs: number): Promise<void> {
    await this.waitFor(`job ${namespace}/${name} to succeed`, timeoutMs, async () => {
      const job = await this.batch.readNamespacedJob({ name, namespace });
      if ((job.status?.failed ?? 0) > 0 && job.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True')) {
        throw new Error(`job ${name} failed:\n${this.kubectl(['-n', namespace, 'logs', `job/${name}`, '--tail=50'])}`);
      }
      return (job.status?.succeeded ?? 0) >= 1 ? true : undefined;
    });
  }

  async waitForDeployment(namespace: string, name: string, timeoutMs: number): Promise<void> {
    await this.waitFor(`deployment ${namespace}/${name} to be available`, timeoutMs, async () => {
      const d = await this.apps.readNamespacedDeployment({ name, namespace });
      const want = d.spec?.replicas ?? 1;
      return d.status?.observedGeneration === d.metadata?.generation && (d.status?.availableReplicas ?? 0) >= want && (d.status?.updatedReplicas ?? 0) >= want ? true : undefined;
    });
  }

  async waitForStatefulSet(namespace: string, name: string, timeoutMs: number): Promise<void> {
    await this.waitFor(`statefulset ${namespace}/${name} to be ready`, timeoutMs, async () => {
      const s = await this.apps.readNamespacedStatefulSet({ name, namespace });
      const want = s.spec?.replicas ?? 1;
      return s.status?.observedGeneration === s.metadata?.generation && (s.status?.readyReplicas ?? 0) >= want && (s.status?.updatedReplicas ?? 0) >= want ? true : undefined;
    });
  }

  async waitForDaemonSet(namespace: string, name: string, timeoutMs: number): Promise<void> {
    await this.waitFor(`daemonset ${namespace}/${name} to be ready`, timeoutMs, async () => {
      const ds = await this.apps.readNamespacedDaemonSet({ name, namespace });
      const want = ds.status?.desiredNumberScheduled ?? 0;
      return want > 0 && ds.status?.numberReady === want && ds.status?.updatedNumberScheduled === want ? true : undefined;
    });
  }

  async pods(namespace: string, labelSelector: string): Promise<V1Pod[]> {
    return (await this.core.listNamespacedPod({ namespace, labelSelector })).items;
  }

  async readyPod(namespace: string, labelSelector: string, timeoutMs: number): Promise<V1Pod> {
    return this.waitFor(`a ready pod ${labelSelector} in ${namespace}`, timeoutMs, async () => {
      return (await this.pods(namespace, labelSelector)).find((p) => !p.metadata?.deletionTimestamp
        && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    });
  }

  async exec(namespace: string, pod: string, container: string, command: string[]): Promise<string> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      void new Exec(this.kc).exec(namespace, pod, container, command, stdout, stderr, null, false, (status) => {
        if (status.status === 'Success') resolve();
        else reject(new Error(`exec ${command.join(' ')} in ${pod}: ${status.message ?? status.status}\n${err}`));
      }).catch(reject);
    });
    return out;
  }

  /** Forwards a loopback port to a pod's port; returns the local base URL. */
  async portForward(namespace: string, pod: string, port: number): Promise<string> {
    const forward = new PortForward(this.kc);
    const server = createServer((socket) => {
      void forward.portForward(namespace, pod, [port], socket, null, socket).catch(() => socket.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.forwards.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  diagnostics(): string {
    try {
      return this.kubectl(['get', 'pods,jobs,daemonsets,deployments', '-A', '-o', 'wide']);
    } catch (error) {
      return `(no diagnostics: ${String(error)})`;
    }
  }

  delete(): void {
    for (const server of this.forwards) server.close();
    this.forwards = [];
    if (process.env['WI_E2E_KEEP_CLUSTER'] !== '1') spawnSync('kind', ['delete', 'cluster', '--name', CLUSTER_NAME], { encoding: 'utf8' });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
