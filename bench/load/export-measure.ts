// What bench:export measures on either backend: the production server streams GET /export/workflow-instances over
// HTTP while this process counts its lines and samples the server's resident set; the floor is the same keyset pages
// read straight through the backend's Reader in this process (no HTTP, no encoding), so the ratio is what the
// endpoint costs over the reads it cannot avoid. Memory: the RSS at rest (after start-up and one small export), then
// the peak resident set during the export (VmHWM, reset through /proc/<pid>/clear_refs just before it starts).
import { writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import { DEFAULT_LIST_ORDER, effectiveSortKeys, type KeysetPosition, type Reader } from '@workflow-index/core';
import { round } from './http-load.js';
import { peakRssMiB, rssMiB } from './server-process.js';

export interface ExportSettings {
  readonly format: 'jsonl' | 'csv';
  readonly encoding: 'identity' | 'gzip';
  readonly pageSize: number;
}

interface ExportRun {
  readonly lines: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly sampledPeakMiB: number;
  readonly trailer: string;
}

/** Streams one export, counting its lines (rows + header/trailer) and bytes, sampling the server's RSS meanwhile. */
async function exportOnce(baseUrl: string, pid: number, settings: ExportSettings, filter: unknown): Promise<ExportRun> {
  const params = new URLSearchParams({ format: settings.format, ...(filter === null ? {} : { filter: JSON.stringify(filter) }) });
  const started = performance.now();
  const response = await fetch(`${baseUrl}/export/workflow-instances?${params.toString()}`, { headers: { 'accept-encoding': settings.encoding } });
  if (response.status !== 200 || response.body === null) throw new Error(`export answered ${response.status}: ${await response.text()}`);
  // fetch undoes gzip itself: bytes are counted decompressed.
  const body: AsyncIterable<Buffer> = Readable.fromWeb(response.body as NodeWebReadableStream<Uint8Array>);
  let lines = 0;
  let bytes = 0;
  let sampledPeakMiB = 0;
  let tail = '';
  const sampler = setInterval(() => {
    sampledPeakMiB = Math.max(sampledPeakMiB, rssMiB(pid));
  }, 50);
  try {
    for await (const chunk of body) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      tail = (tail + chunk.toString('utf8')).slice(-600);
    }
  } finally {
    clearInterval(sampler);
  }
  const trailer = tail.trimEnd().split('\n').at(-1) ?? '';
  return { lines, bytes, seconds: (performance.now() - started) / 1000, sampledPeakMiB, trailer };
}

/** The floor: the same keyset pages through the Reader in this process. */
async function readerFloor(reader: Reader, pageSize: number): Promise<{ rows: number; seconds: number }> {
  const order = effectiveSortKeys<string>([], DEFAULT_LIST_ORDER);
  const started = performance.now();
  let rows = 0;
  let after: KeysetPosition | null = null;
  for (;;) {
    const page = await reader.listInstances({ filter: null, orderBy: [], after, limit: pageSize, offset: 0, payloads: true });
    rows += page.length;
    const last = page.at(-1);
    if (page.length < pageSize || last === undefined) break;
    after = { values: order.map((k) => (last as unknown as Record<string, string | null>)[k.field] ?? null) };
  }
  return { rows, seconds: (performance.now() - started) / 1000 };
}

/**
 * Exports every run through the running server (`restFilter` picks two runs for the at-rest export), checks that all
 * `instances` rows and the complete trailer arrived, then reads the floor through `reader`: the figures as one object.
 */
export async function measureExport(
  server: { baseUrl: string; pid: number },
  reader: Reader,
  settings: ExportSettings,
  instances: number,
  restFilter: unknown,
  log: (line: string) => void,
): Promise<Record<string, number | string>> {
  const { baseUrl, pid } = server;
  await exportOnce(baseUrl, pid, settings, restFilter);
  await new Promise((r) => setTimeout(r, 1000));
  const restMiB = rssMiB(pid);
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  log(`server pid ${pid}: RSS at rest ${restMiB} MiB; exporting ${instances} runs as ${settings.format} (${settings.encoding}), pages of ${settings.pageSize}`);
  const run = await exportOnce(baseUrl, pid, settings, null);
  const peakMiB = Math.max(peakRssMiB(pid), run.sampledPeakMiB);
  const rows = run.lines - (settings.format === 'csv' ? 2 : 1);
  if (rows !== instances || !/complete/.test(run.trailer)) throw new Error(`the export wrote ${rows} rows, trailer ${run.trailer}`);
  log(`export: ${rows} rows, ${round(run.bytes / 1024 / 1024, 1)} MiB in ${round(run.seconds, 1)} s; peak RSS ${peakMiB} MiB`);
  const floor = await readerFloor(reader, settings.pageSize);
  log(`floor: ${floor.rows} rows through the Reader in ${round(floor.seconds, 1)} s`);
  const rowsPerSecond = round(rows / run.seconds, 0);
  const floorRowsPerSecond = round(floor.rows / floor.seconds, 0);
  return {
    instances, format: settings.format, encoding: settings.encoding, pageSize: settings.pageSize,
    rows, megabytes: round(run.bytes / 1024 / 1024, 1), seconds: round(run.seconds, 1),
    rowsPerSecond, floorRowsPerSecond, ratio: round(rowsPerSecond / floorRowsPerSecond, 3),
    restRssMiB: restMiB, peakRssMiB: peakMiB, peakOverRestMiB: round(peakMiB - restMiB, 1),
  };
}
