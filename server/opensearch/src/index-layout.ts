// How many shards and replicas the indices of the backend get (OPENSEARCH_SHARDS / OPENSEARCH_REPLICAS, read by
// `opensearch-setup`). Replicas are written as `auto_expand_replicas: "0-<replicas>"`: as many replicas as the cluster
// has other nodes for, up to the number asked. A single node therefore stays green with the default of one replica
// (a replica that can never be assigned would keep it yellow for ever), a cluster of three gets the one replica, and a
// cluster that loses nodes goes down to what it can hold instead of staying yellow. Replicas change on an open index;
// shards are fixed when an index is created (docs/opensearch.md, "Shards and replicas").
export interface IndexLayout {
  /** Primary shards of each new index (the normalizer's small state index always has one). */
  readonly shards: number;
  /** Most replicas of every shard. */
  readonly replicas: number;
}

export const SHARDS_ENV = 'OPENSEARCH_SHARDS';
export const REPLICAS_ENV = 'OPENSEARCH_REPLICAS';
export const DEFAULT_INDEX_LAYOUT: IndexLayout = Object.freeze({ shards: 1, replicas: 1 });

/** OpenSearch's own ceiling for number_of_shards. */
const MAX_SHARDS = 1024;

/** The layout the environment asks for (defaults 1 / 1); every problem is reported. */
export function indexLayoutFromEnv(env: Readonly<Record<string, string | undefined>>): { layout: IndexLayout; problems: string[] } {
  const problems: string[] = [];
  const read = (name: string, min: number, max: number, fallback: number): number => {
    const text = env[name]?.trim();
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(env[name])}`);
      return fallback;
    }
    return value;
  };
  const shards = read(SHARDS_ENV, 1, MAX_SHARDS, DEFAULT_INDEX_LAYOUT.shards);
  const replicas = read(REPLICAS_ENV, 0, 16, DEFAULT_INDEX_LAYOUT.replicas);
  return { layout: { shards, replicas }, problems };
}

/** The replica setting of every index: `auto_expand_replicas` (number_of_replicas follows it). */
export function replicaSettings(layout: IndexLayout): { auto_expand_replicas: string } {
  return { auto_expand_replicas: `0-${layout.replicas}` };
}

/** `index` settings of a new index with this layout. */
export function layoutSettings(layout: IndexLayout): { number_of_shards: number; auto_expand_replicas: string } {
  return { number_of_shards: layout.shards, ...replicaSettings(layout) };
}
