// Where log lines come from: a file (`*.gz` decompressed: the kubelet compresses rotated container logs),
// standard input (`-`), or a named stream.
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** A file path (`-` is standard input, `*.gz` is decompressed) or a named stream. */
export type LogSource = string | { readonly name: string; readonly stream: Readable };

/** How a source is named in counts and messages: `stdin` for `-`. */
export function logSourceName(source: LogSource): string {
  if (typeof source !== 'string') return source.name;
  return source === '-' ? 'stdin' : source;
}

/** The source's bytes. Rejects only when a file cannot be opened; later read errors come from the stream. */
export async function openLogSource(source: LogSource, stdin?: Readable): Promise<Readable> {
  if (typeof source !== 'string') return source.stream;
  if (source === '-') return stdin ?? process.stdin;
  const stream = (await open(source, 'r')).createReadStream();
  if (!source.endsWith('.gz')) return stream;
  const gunzip = createGunzip();
  stream.on('error', (error) => gunzip.destroy(error));
  return stream.pipe(gunzip);
}
