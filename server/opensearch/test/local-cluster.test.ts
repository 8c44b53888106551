// The members of a local cluster (`npm run opensearch -- start --nodes N`): ports, folders and the discovery settings
// each writes; the cluster itself runs in cluster.test.ts.
import { describe, expect, it } from 'vitest';
import { localClusterNodes, localClusterUrls } from '../src/local-cluster.js';
import { localNodePaths, nodeSettings } from '../src/local-node.js';

describe('local cluster members', () => {
  const nodes = localClusterNodes({ dir: '/d', basePort: 9220, nodes: 3, version: '3.8.0' });

  it('node i answers on port + i, talks on port + 100 + i, and keeps its files in its own folder beside the shared distribution', () => {
    expect(nodes.map((n) => [n.member.nodeName, n.httpPort, n.url])).toEqual([
      ['node-0', 9220, 'http://127.0.0.1:9220'],
      ['node-1', 9221, 'http://127.0.0.1:9221'],
      ['node-2', 9222, 'http://127.0.0.1:9222'],
    ]);
    expect(localClusterUrls({ basePort: 9220, nodes: 3 })).toEqual(nodes.map((n) => n.url));
    expect(nodes[1]!.paths).toEqual({
      dir: '/d',
      home: '/d/opensearch-3.8.0',
      config: '/d/cluster-9220/node-1/config',
      data: '/d/cluster-9220/node-1/data',
      logs: '/d/cluster-9220/node-1/logs',
      log: '/d/cluster-9220/node-1/logs/workflow-index-local-9220.log',
      pidFile: '/d/cluster-9220/node-1/run/opensearch.pid',
      launcherLog: '/d/cluster-9220/node-1/launcher.log',
    });
    // The single node of the same folder is apart from every member: its own config, data and pid file.
    const single = localNodePaths('/d', '3.8.0');
    for (const n of nodes) expect([n.paths.config, n.paths.data, n.paths.pidFile]).not.toContain(single.config);
  });

  it('a member finds the others by their transport ports and bootstraps with all of them; a single node stays alone', () => {
    const text = nodeSettings(nodes[2]!.paths, 9222, [], nodes[2]!.member);
    expect(text).toContain('cluster.name: workflow-index-local-9220\nnode.name: node-2\n');
    expect(text).toContain('discovery.seed_hosts: ["127.0.0.1:9320", "127.0.0.1:9321", "127.0.0.1:9322"]\n');
    expect(text).toContain('cluster.initial_cluster_manager_nodes: ["node-0", "node-1", "node-2"]\n');
    expect(text).toContain('http.port: 9222\ntransport.port: 9322\n');
    expect(text).toContain('path.data: /d/cluster-9220/node-2/data\n');
    expect(text).not.toContain('single-node');
    expect(nodeSettings(localNodePaths('/d'), 9200)).toContain('discovery.type: single-node\n');
  });
});
