// Offline validation of rendered objects against the Kubernetes API schemas:
//   - kubernetes-models (generated from the OpenAPI spec): types, required fields, formats;
//   - @kubernetes/client-node's model type maps: no field the API does not know (a typo such as
//     `readOnlyRootFileSystem` would otherwise be silently dropped by the API server).
// CRDs we ship (ServiceMonitor) get a structural check of the fields we use, as their models are not installed.
import * as clientNode from '@kubernetes/client-node';
import { Namespace, ServiceAccount, ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment, DaemonSet, StatefulSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { K8sObject } from './kustomize-render.js';

interface Validatable {
  validate(): void;
}

const MODELS: Record<string, (data: K8sObject) => Validatable> = {
  'v1/Namespace': (d) => new Namespace(d as never),
  'v1/ServiceAccount': (d) => new ServiceAccount(d as never),
  'v1/ConfigMap': (d) => new ConfigMap(d as never),
  'v1/Secret': (d) => new Secret(d as never),
  'v1/Service': (d) => new Service(d as never),
  'apps/v1/Deployment': (d) => new Deployment(d as never),
  'apps/v1/DaemonSet': (d) => new DaemonSet(d as never),
  'apps/v1/StatefulSet': (d) => new StatefulSet(d as never),
  'batch/v1/Job': (d) => new Job(d as never),
  'rbac.authorization.k8s.io/v1/ClusterRole': (d) => new ClusterRole(d as never),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': (d) => new ClusterRoleBinding(d as never),
  'rbac.authorization.k8s.io/v1/Role': (d) => new Role(d as never),
  'rbac.authorization.k8s.io/v1/RoleBinding': (d) => new RoleBinding(d as never),
  'networking.k8s.io/v1/NetworkPolicy': (d) => new NetworkPolicy(d as never),
  'policy/v1/PodDisruptionBudget': (d) => new PodDisruptionBudget(d as never),
};

/** Problems found in one object (empty when valid). */
export function schemaProblems(object: K8sObject): string[] {
  const key = `${object.apiVersion}/${object.kind}`;
  if (key === 'monitoring.coreos.com/v1/ServiceMonitor') return serviceMonitorProblems(object);
  const model = MODELS[key];
  if (!model) return [`${key} has no schema in this test; add it`];
  const problems: string[] = [];
  try {
    model(object).validate();
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  const version = object.apiVersion.split('/').pop()!;
  const className = `${version.charAt(0).toUpperCase()}${version.slice(1)}${object.kind}`;
  unknownFields(object, className, '', problems);
  return problems;
}

type AttributeMap = { name: string; baseName: string; type: string }[];

function attributeMap(className: string): AttributeMap | undefined {
  const cls = (clientNode as unknown as Record<string, { getAttributeTypeMap?: () => AttributeMap } | undefined>)[className];
  return cls?.getAttributeTypeMap?.();
}

function unknownFields(value: unknown, type: string, path: string, problems: string[]): void {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) problems.push(`${path || '/'} must be a list`);
    else value.forEach((v, i) => unknownFields(v, array[1]!, `${path}/${i}`, problems));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value !== 'object' || Array.isArray(value)) problems.push(`${path} must be a map`);
    else for (const [k, v] of Object.entries(value)) unknownFields(v, map[1]!, `${path}/${k}`, problems);
    return;
  }
  const attributes = attributeMap(type);
  if (!attributes) return; // scalar or free-form
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${path || '/'} must be an object (${type})`);
    return;
  }
  const byName = new Map(attributes.map((a) => [a.baseName, a.type]));
  for (const [k, v] of Object.entries(value)) {
    const fieldType = byName.get(k);
    if (fieldType === undefined) problems.push(`${path}/${k} is not a field of ${type}`);
    else unknownFields(v, fieldType, `${path}/${k}`, problems);
  }
}

function serviceMonitorProblems(object: K8sObject): string[] {
  const problems: string[] = [];
  const spec = object['spec'] as { selector?: { matchLabels?: Record<string, string> }; endpoints?: { port?: string; path?: string; interval?: string }[] } | undefined;
  if (!spec?.selector?.matchLabels || Object.keys(spec.selector.matchLabels).length === 0) problems.push('ServiceMonitor needs spec.selector.matchLabels');
  if (!spec?.endpoints || spec.endpoints.length === 0) problems.push('ServiceMonitor needs spec.endpoints');
  for (const e of spec?.endpoints ?? []) {
    if (typeof e.port !== 'string') problems.push('ServiceMonitor endpoint needs a named port');
    if (typeof e.path !== 'string' || !e.path.startsWith('/')) problems.push('ServiceMonitor endpoint needs a path');
    if (e.interval !== undefined && !/^\d+(ms|s|m|h)$/.test(e.interval)) problems.push(`bad interval ${e.interval}`);
  }
  const allowed = new Set(['apiVersion', 'kind', 'metadata', 'spec']);
  for (const k of Object.keys(object)) if (!allowed.has(k)) problems.push(`/${k} is not a field of ServiceMonitor`);
  return problems;
}
