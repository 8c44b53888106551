// plugins/filter_kubernetes: the pod's metadata, looked up by the pod named in the tag, appended as `kubernetes` in
// Fluent Bit's key order (Merge_Log is not modelled). The tag, less Kube_Tag_Prefix, is read with the default regex
// (a /var/log/containers name) or with the named groups of the Regex_Parser's regex (kube_regex.c): pod_name and
// namespace_name are needed for the lookup, container_name and docker_id are taken when the regex has them.
import { type ClassicConfig, ClassicConfigError, isOn, property, requiredProperty, sectionsOf } from '../classic-config.js';
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
  readonly containerName?: string;
}

export const kubernetesFilter: FilterPlugin = (section, alias, context) => {
  const prefix = property(section, 'Kube_Tag_Prefix') ?? 'kube.var.log.containers.';
  const labels = property(section, 'Labels') === undefined || isOn(property(section, 'Labels'));
  const tagRegex = tagRegexOf(context.parsers, property(section, 'Regex_Parser'), alias);
  if (isOn(property(section, 'Merge_Log'))) throw new ClassicConfigError(`[FILTER] ${alias}: Merge_Log is not modelled`);
  return {
    apply: (item) => {
      const pod = podFromTag(item.tag, prefix, tagRegex);
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
      if (pod.containerName !== undefined) entries.push(['container_name', pod.containerName]);
      if (pod.dockerId !== undefined) entries.push(['docker_id', pod.dockerId]);
      if (meta.containerHash !== undefined) entries.push(['container_hash', meta.containerHash]);
      entries.push(['container_image', meta.containerImage]);
      return keep({ ...item, record: item.record.with('kubernetes', new FluentMap(entries)) });
    },
  };
};

interface PodFromTag extends PodReference {
  readonly dockerId?: string;
}

// The kubernetes filter's default tag regex (KUBE_TAG_TO_REGEX): <pod>_<namespace>_<container>-<64 hex id>.log
const KUBE_FILE = /^(?<pod_name>[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*)_(?<namespace_name>[^_]+)_(?<container_name>.+)-(?<docker_id>[a-z0-9]{64})\.log$/;

function tagRegexOf(parsers: ClassicConfig, name: string | undefined, alias: string): RegExp {
  if (name === undefined) return KUBE_FILE;
  const parser = sectionsOf(parsers, 'PARSER').find((s) => property(s, 'Name') === name);
  if (!parser) throw new ClassicConfigError(`[FILTER] ${alias}: Regex_Parser ${name} is not defined in ${parsers.source}`);
  if (requiredProperty(parser, 'Format') !== 'regex') throw new ClassicConfigError(`[FILTER] ${alias}: Regex_Parser ${name} is not Format regex`);
  return new RegExp(requiredProperty(parser, 'Regex'));
}

function podFromTag(tag: string, prefix: string, regex: RegExp): PodFromTag | undefined {
  if (!tag.startsWith(prefix)) return undefined;
  const groups = regex.exec(tag.slice(prefix.length))?.groups;
  const podName = groups?.['pod_name'];
  const namespace = groups?.['namespace_name'];
  if (podName === undefined || namespace === undefined) return undefined;
  return { podName, namespace, containerName: groups!['container_name'], dockerId: groups!['docker_id'] };
}
