// plugins/filter_kubernetes: the pod's metadata, looked up by the pod named in the tag, appended as `kubernetes` in
// Fluent Bit's key order (Merge_Log is not modelled).
import { ClassicConfigError, isOn, property } from '../classic-config.js';
import { type FluentValue, FluentMap } from '../fluent-value.js';
import { type FilterPlugin, keep } from './filter.js';

export interface PodMetadata {
  readonly podId: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly host: string;
  readonly podIp?: string;
  readonly containerHash?: string;
  readonly containerImage: string;
}

export interface PodReference {
  readonly namespace: string;
  readonly podName: string;
  readonly containerName: string;
}

export const kubernetesFilter: FilterPlugin = (section, alias, context) => {
  const prefix = property(section, 'Kube_Tag_Prefix') ?? 'kube.var.log.containers.';
  const labels = property(section, 'Labels') === undefined || isOn(property(section, 'Labels'));
  if (isOn(property(section, 'Merge_Log'))) throw new ClassicConfigError(`[FILTER] ${alias}: Merge_Log is not modelled`);
  return {
    apply: (item) => {
      const pod = podFromTag(item.tag, prefix);
      const meta = pod && context.podMetadata ? context.podMetadata(pod) : undefined;
      // plugins/filter_kubernetes: a failed API lookup leaves the record without `kubernetes` (lookup_pod_meta
      // returns an empty buffer, nothing is appended).
      if (!pod || !meta) return keep(item);
      const entries: [string, FluentValue][] = [
        ['pod_name', pod.podName],
        ['namespace_name', pod.namespace],
        ['pod_id', meta.podId],
      ];
      if (labels) entries.push(['labels', new FluentMap(Object.entries(meta.labels))]);
      entries.push(['host', meta.host]);
      if (meta.podIp !== undefined) entries.push(['pod_ip', meta.podIp]);
      entries.push(['container_name', pod.containerName], ['docker_id', pod.dockerId]);
      if (meta.containerHash !== undefined) entries.push(['container_hash', meta.containerHash]);
      entries.push(['container_image', meta.containerImage]);
      return keep({ ...item, record: item.record.with('kubernetes', new FluentMap(entries)) });
    },
  };
};

interface PodFromTag extends PodReference {
  readonly dockerId: string;
}

// The kubernetes filter's default tag regex: <pod>_<namespace>_<container>-<64 hex id>.log
const KUBE_FILE = /^([a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*)_([^_]+)_(.+)-([a-z0-9]{64})\.log$/;

function podFromTag(tag: string, prefix: string): PodFromTag | undefined {
  if (!tag.startsWith(prefix)) return undefined;
  const match = KUBE_FILE.exec(tag.slice(prefix.length));
  if (!match) return undefined;
  return { podName: match[1]!, namespace: match[2]!, containerName: match[3]!, dockerId: match[4]! };
}
