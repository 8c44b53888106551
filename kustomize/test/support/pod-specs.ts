// Walks the workload objects of a render: their pod templates and containers.
import type { K8sObject } from './kustomize-render.js';

export interface Container {
  readonly name: string;
  readonly image?: string;
  readonly imagePullPolicy?: string;
  readonly command?: string[];
  readonly args?: string[];
  readonly env?: { name: string; value?: string; valueFrom?: Record<string, { name?: string; key?: string; optional?: boolean } | undefined> }[];
  readonly envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readonly ports?: { name?: string; containerPort: number }[];
  readonly resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readonly livenessProbe?: unknown;
  readonly readinessProbe?: unknown;
  readonly startupProbe?: unknown;
  readonly securityContext?: SecurityContext;
  readonly volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface SecurityContext {
  readonly runAsNonRoot?: boolean;
  readonly runAsUser?: number;
  readonly runAsGroup?: number;
  readonly allowPrivilegeEscalation?: boolean;
  readonly readOnlyRootFilesystem?: boolean;
  readonly privileged?: boolean;
  readonly capabilities?: { drop?: string[]; add?: string[] };
  readonly seccompProfile?: { type: string };
}

export interface PodSpec {
  readonly serviceAccountName?: string;
  readonly automountServiceAccountToken?: boolean;
  readonly securityContext?: SecurityContext & { fsGroup?: number };
  readonly initContainers?: Container[];
  readonly containers: Container[];
  readonly volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string }; hostPath?: { path: string }; emptyDir?: object }[];
  readonly restartPolicy?: string;
  readonly hostNetwork?: boolean;
  readonly hostPID?: boolean;
}

export interface Workload {
  readonly object: K8sObject;
  readonly id: string;
  readonly podLabels: Record<string, string>;
  readonly spec: PodSpec;
  /** Jobs run to completion; everything else is long-running. */
  readonly longRunning: boolean;
}

const WORKLOAD_KINDS = new Set(['Deployment', 'DaemonSet', 'StatefulSet', 'Job']);

export function workloads(objects: readonly K8sObject[]): Workload[] {
  return objects.filter((o) => WORKLOAD_KINDS.has(o.kind)).map((o) => {
    const template = (o['spec'] as { template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec } }).template;
    return {
      object: o,
      id: `${o.kind}/${o.metadata.name}`,
      podLabels: template.metadata?.labels ?? {},
      spec: template.spec,
      longRunning: o.kind !== 'Job',
    };
  });
}

export function allContainers(spec: PodSpec): { container: Container; init: boolean }[] {
  return [...(spec.initContainers ?? []).map((container) => ({ container, init: true })), ...spec.containers.map((container) => ({ container, init: false }))];
}

/** Effective security setting: container value, else pod value. */
export function effective<K extends keyof SecurityContext>(spec: PodSpec, container: Container, key: K): SecurityContext[K] | undefined {
  return container.securityContext?.[key] ?? spec.securityContext?.[key];
}
