// The tail input across Fluent Bit's restarts: which files it follows, from which offset, and what its position
// database (DB) keeps, as 4.0.13 does it (../shared/reference/fluent-bit-observed.md, item 8; plugins/in_tail):
//  - a position is stored per inode, under the name the file was found by (the Path glob's match);
//  - at start-up, with DB.compare_filename, an entry is kept only when a followed file has its inode AND the stored
//    name's basename equals the basename of the file itself (a symlink resolved): a /var/log/containers symlink
//    (`<pod>_<namespace>_<container>-<id>.log`) never equals its target's `0.log`, so every entry was deleted as
//    stale and every retained log read again from its head; without compare_filename the inode alone decides;
//    an entry whose inode no followed file has is stale too;
//  - a file without a kept position is read from its head (Read_from_Head On) or from its end;
//  - while running, a rotated file (renamed, same inode) is read to its end before it is let go (Rotate_Wait); a
//    rotation while Fluent Bit is down leaves the renamed file outside the glob: its unread tail is never read;
//  - the filters' state (the join script's held parts) lives in the process: a new start is a new pipeline.
// A node's log directory is modelled by NodeLogs (files with inodes, symlinks, rotation, deletion, inode reuse).

import { basename } from 'node:path';
import type { FluentBitPipeline, PipelineResult } from './pipeline.js';

interface NodeFile {
  readonly inode: number;
  content: Buffer;
}

/** A node's log files as the kubelet and the container runtime write them. */
export class NodeLogs {
  private readonly files = new Map<string, NodeFile>();
  private readonly links = new Map<string, string>();
  private nextInode = 1000;

  /** Appends to a file, creating it (with a new inode, or the one given: the filesystem reusing an inode). */
  append(path: string, bytes: Buffer, inode?: number): void {
    const file = this.files.get(path);
    if (file) file.content = Buffer.concat([file.content, bytes]);
    else this.files.set(path, { inode: inode ?? this.nextInode++, content: Buffer.from(bytes) });
  }

  /** A symlink at `path` to `target` (the kubelet's /var/log/containers entries). */
  link(path: string, target: string): void {
    this.links.set(path, target);
  }

  /** The kubelet's rotation: `path` renamed `path.<suffix>` (same inode), a new empty file at `path`. */
  rotate(path: string, suffix: string): void {
    const file = this.files.get(path);
    if (!file) throw new Error(`no file ${path}`);
    this.files.delete(path);
    this.files.set(`${path}.${suffix}`, file);
    this.files.set(path, { inode: this.nextInode++, content: Buffer.alloc(0) });
  }

  remove(path: string): void {
    this.files.delete(path);
  }

  inodeOf(path: string): number | undefined {
    return this.files.get(this.resolve(path))?.inode;
  }

  /** Every name there is: files and symlinks. */
  names(): string[] {
    return [...this.files.keys(), ...this.links.keys()];
  }

  resolve(path: string): string {
    return this.links.get(path) ?? path;
  }

  contentByInode(inode: number): { path: string; content: Buffer } | undefined {
    for (const [path, file] of this.files) if (file.inode === inode) return { path, content: file.content };
    return undefined;
  }
}

export interface TailDatabaseEntry {
  readonly name: string;
  readonly inode: number;
  readonly offset: number;
}

/** The position database on the node's disk (a hostPath): it outlives every Fluent Bit process. */
export class TailDatabase {
  entries: TailDatabaseEntry[] = [];
}

interface Followed {
  /** The name it was found by: its tag comes from it. */
  readonly name: string;
  readonly inode: number;
  offset: number;
}

export interface TailRun {
  /** Reads what every followed file holds past its offset (whole lines), through the pipeline. */
  read(): PipelineResult[];
  /** Fluent Bit's own log lines about positions (`db: stale file deleted from database: <name>`). */
  readonly log: readonly string[];
  /** Bytes read per file name in this run, from which offset (a restart that re-reads shows offset 0). */
  readonly reads: readonly { readonly name: string; readonly from: number; readonly bytes: number }[];
}

/** One Fluent Bit process: starts from the database the previous one left (an empty one when it has no DB). */
export function startTail(pipeline: FluentBitPipeline, node: NodeLogs, database: TailDatabase): TailRun {
  const settings = pipeline.tail;
  const db = settings.db ? database : new TailDatabase();
  const log: string[] = [];
  const reads: { name: string; from: number; bytes: number }[] = [];
  const matched = (): { name: string; inode: number }[] => node.names()
    .filter((name) => pipeline.watches(name))
    .flatMap((name) => {
      const inode = node.inodeOf(name);
      return inode === undefined ? [] : [{ name, inode }];
    });

  const atStart = matched();
  db.entries = db.entries.filter((entry) => {
    const kept = atStart.some((f) => f.inode === entry.inode
      && (!settings.compareFilename || basename(entry.name) === basename(node.resolve(f.name))));
    if (!kept) log.push(`db: stale file deleted from database: ${entry.name}`);
    return kept;
  });
  const followed: Followed[] = atStart.map((f) => {
    const entry = db.entries.find((e) => e.inode === f.inode);
    const size = node.contentByInode(f.inode)?.content.length ?? 0;
    return { name: f.name, inode: f.inode, offset: entry ? entry.offset : settings.readFromHead ? 0 : size };
  });
  const store = (file: Followed): void => {
    db.entries = [...db.entries.filter((e) => e.inode !== file.inode), { name: file.name, inode: file.inode, offset: file.offset }];
  };
  followed.forEach(store);

  return {
    log,
    reads,
    read() {
      // Files that appeared since (a new container, a rotation's new file) are read from their head.
      for (const f of matched()) {
        if (!followed.some((x) => x.inode === f.inode)) {
          const file = { name: f.name, inode: f.inode, offset: 0 };
          followed.push(file);
          store(file);
        }
      }
      const results: PipelineResult[] = [];
      for (const file of [...followed]) {
        const current = node.contentByInode(file.inode);
        if (!current) continue;
        const end = current.content.lastIndexOf(0x0a) + 1;
        if (end > file.offset) {
          reads.push({ name: file.name, from: file.offset, bytes: end - file.offset });
          results.push(pipeline.readLogFile(file.name, current.content.subarray(file.offset, end)));
          file.offset = end;
          store(file);
        }
        // A rotated file (its name no longer leads to it), read to its end, is let go after Rotate_Wait, its entry
        // with it.
        if (node.inodeOf(file.name) !== file.inode) {
          followed.splice(followed.indexOf(file), 1);
          db.entries = db.entries.filter((e) => e.inode !== file.inode);
        }
      }
      return results;
    },
  };
}
