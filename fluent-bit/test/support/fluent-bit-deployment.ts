// The Fluent Bit DaemonSet as an overlay renders it, reduced to what the configuration depends on: the
// environment (literal values, ConfigMap keys, Secret references), the mounts and the generated config ConfigMap.
import type { K8sObject } from '../../../kustomize/test/support/kustomize-render.js';
import { type Container, type PodSpec, workloads } from '../../../kustomize/test/support/pod-specs.js';

export interface FluentBitDeployment {
  readonly container: Container;
  readonly spec: PodSpec;
  /** Every variable the container gets, with its value where the render knows it. */
  readonly env: ReadonlyMap<string, { readonly value?: string; readonly secret?: { readonly name: string; readonly key: string } }>;
  readonly configFiles: Readonly<Record<string, string>>;
  readonly configMountPath: string;
  /** mountPath → hostPath of the container's hostPath mounts. */
  readonly hostMounts: ReadonlyMap<string, string>;
}

export function fluentBitDeployment(objects: readonly K8sObject[]): FluentBitDeployment {
  const workload = workloads(objects).find((w) => w.id === 'DaemonSet/workflow-index-fluent-bit');
  if (!workload) throw new Error('no Fluent Bit DaemonSet in the render');
  const container = workload.spec.containers.find((c) => c.name === 'fluent-bit')!;
  const ns = workload.object.metadata.namespace;
  const configMap = (name: string): Record<string, string> => {
    const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.namespace === ns && o.metadata.name === name);
    if (!cm) throw new Error(`ConfigMap ${ns}/${name} is not in the render`);
    return (cm['data'] as Record<string, string>) ?? {};
  };
  const env = new Map<string, { value?: string; secret?: { name: string; key: string } }>();
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) for (const [k, v] of Object.entries(configMap(source.configMapRef.name))) env.set(k, { value: v });
  }
  for (const e of container.env ?? []) {
    const secret = e.valueFrom?.['secretKeyRef'];
    env.set(e.name, secret ? { secret: { name: secret.name!, key: secret.key! } } : { value: e.value ?? '' });
  }
  const volumes = new Map((workload.spec.volumes ?? []).map((v) => [v.name, v]));
  const mounts = container.volumeMounts ?? [];
  const configMount = mounts.find((m) => volumes.get(m.name)?.configMap);
  if (!configMount) throw new Error('the Fluent Bit container mounts no ConfigMap');
  const hostMounts = new Map(mounts.filter((m) => volumes.get(m.name)?.hostPath).map((m) => [m.mountPath, volumes.get(m.name)!.hostPath!.path]));
  return {
    container,
    spec: workload.spec,
    env,
    configFiles: configMap(volumes.get(configMount.name)!.configMap!.name),
    configMountPath: configMount.mountPath,
    hostMounts,
  };
}

/** Environment for the pipeline model: rendered values, and a stand-in for each Secret value. */
export function modelEnvironment(deployment: FluentBitDeployment, overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, entry] of deployment.env) env[name] = entry.value ?? `<${entry.secret!.name}/${entry.secret!.key}>`;
  return { ...env, ...overrides };
}
