import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCriLine, rfc3339ToEpochSeconds } from '../src/container-log/cri-line.js';
import { parseJsonLogLine } from '../src/container-log/docker-json-line.js';
import { LogLineReader, type LogLine } from '../src/container-log/log-line-reader.js';
import { logSourceName, openLogSource } from '../src/container-log/log-source.js';
import { repairEventLine } from '../src/event-line-repair.js';

const dir = mkdtempSync(join(tmpdir(), 'wi-log-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(input: Readable): Promise<{ lines: LogLine[]; unfinished: LogLine[]; linesRead: number }> {
  const reader = new LogLineReader(input);
  const lines: LogLine[] = [];
  for await (const line of reader.lines()) lines.push(line);
  return { lines, unfinished: reader.unfinished(), linesRead: reader.linesRead };
}

/** The stream's bytes in chunks cut at the given sizes (a file read in blocks, a pipe). */
function chunked(content: Buffer, sizes: readonly number[]): Readable {
  const chunks: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= content.length) break;
    chunks.push(content.subarray(at, at + size));
    at += size;
  }
  if (at < content.length) chunks.push(content.subarray(at));
  return Readable.from(chunks);
}

const T1 = '2026-05-12T09:26:40.123456789Z';
const T2 = '2026-05-12T09:26:41.5Z';
const cri = (time: string, stream: string, flag: string, content: string | Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${time} ${stream} ${flag} `), Buffer.from(content), Buffer.from('\n')]);

// Printed lines as the runtime sees them: bytes without line breaks, multi-byte characters so that cuts fall inside them.
const printed = fc.string({ unit: fc.constantFrom('a', ' ', '{', '"', 'é', '東', '📦', '\\', '\u0000'), maxLength: 20 }).map((s) => Buffer.from(s, 'utf8'));

interface CriPart {
  readonly stream: 'stdout' | 'stderr';
  readonly bytes: Buffer;
  readonly last: boolean;
  readonly time: string;
  readonly source: number;
}

describe('LogLineReader: CRI', () => {
  it('gives back every printed line, whatever its split into P parts, the interleaving of streams and the chunking', async () => {
    const output = fc.array(fc.record({ stream: fc.constantFrom('stdout' as const, 'stderr' as const), bytes: printed, cuts: fc.array(fc.nat({ max: 80 }), { maxLength: 4 }) }), { maxLength: 12 });
    await fc.assert(fc.asyncProperty(output, fc.array(fc.nat(), { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 20 }), async (lines, choices, sizes) => {
      const perStream = (['stdout', 'stderr'] as const).map((stream) => lines.flatMap((l, source) => {
        if (l.stream !== stream) return [];
        const offsets = [...new Set(l.cuts.map((c) => Math.min(c, l.bytes.length)))].sort((a, b) => a - b);
        const bounds = [0, ...offsets, l.bytes.length];
        const parts = bounds.slice(1).map((end, i) => l.bytes.subarray(bounds[i], end));
        return parts.map((bytes, i): CriPart => ({ stream, bytes, last: i === parts.length - 1, time: i === 0 ? T1 : T2, source }));
      }));
      const physical: CriPart[] = [];
      let c = 0;
      while (perStream.some((q) => q.length > 0)) {
        const open = perStream.filter((q) => q.length > 0);
        physical.push(open[(choices[c++] ?? 0) % open.length]!.shift()!);
      }
      const file = Buffer.concat(physical.map((p) => cri(p.time, p.stream, p.last ? 'F' : 'P', p.bytes)));
      const read = await readAll(chunked(file, sizes));
      // Lines come out when their last part is read; each starts where its first part was.
      const firstLine = (source: number): number => physical.findIndex((p) => p.source === source) + 1;
      const expected = physical.filter((p) => p.last).map((p) => ({
        ...repairEventLine(lines[p.source]!.bytes), line: firstLine(p.source), time: rfc3339ToEpochSeconds(T1), parsed: undefined,
      }));
      expect(read.lines).toEqual(expected);
      expect(read.unfinished).toEqual([]);
      expect(read.linesRead).toBe(physical.length);
    }));
  });

  it('joins parts as bytes, so a character cut between parts is whole again', async () => {
    const text = Buffer.from('{"a":"東"}');
    const read = await readAll(Readable.from([Buffer.concat([cri(T1, 'stdout', 'P', text.subarray(0, 7)), cri(T2, 'stdout', 'F', text.subarray(7))])]));
    expect(read.lines).toEqual([{ text: '{"a":"東"}', repairs: [], line: 1, time: 1778578000 + 0.123456789, parsed: undefined }]);
  });

  it('repairs the joined line: a NUL escape split across parts is one escape', async () => {
    const read = await readAll(Readable.from([Buffer.concat([cri(T1, 'stdout', 'P', '{"a":"\\u00'), cri(T1, 'stdout', 'F', '00"}')])]));
    expect(read.lines.map((l) => [l.text, l.repairs])).toEqual([['{"a":"\\ufffd"}', ['nul-escape']]]);
  });

  it('hands out lines whose F part never came, after the others, as far as they got', async () => {
    const file = Buffer.concat([cri(T1, 'stderr', 'P', 'err-'), cri(T1, 'stdout', 'P', 'out-'), cri(T2, 'stdout', 'F', 'done'), cri(T2, 'stdout', 'P', 'cut')]);
    const read = await readAll(Readable.from([file]));
    expect(read.lines.map((l) => [l.text, l.line])).toEqual([['out-done', 2]]);
    expect(read.unfinished.map((l) => [l.text, l.line, l.time])).toEqual([['err-', 1, rfc3339ToEpochSeconds(T1)], ['cut', 4, rfc3339ToEpochSeconds(T2)]]);
  });

  it('reads tags after the flag and an F part without content', () => {
    expect(parseCriLine(`${T1} stdout F:x text`)).toEqual({ timeText: T1, stream: 'stdout', partial: false, content: 'text' });
    expect(parseCriLine(`${T1} stderr P`)).toEqual({ timeText: T1, stream: 'stderr', partial: true, content: '' });
    expect(parseCriLine(`${T1} stdin F text`)).toBeUndefined();
    expect(parseCriLine('2026-05-12 09:26:40Z stdout F text')).toBeUndefined();
  });
});

describe('rfc3339ToEpochSeconds', () => {
  it('keeps the digits below the millisecond and reads offsets', () => {
    expect(rfc3339ToEpochSeconds('2026-05-12T09:26:40.123456789Z')).toBe(1778578000 + 0.123456789);
    expect(rfc3339ToEpochSeconds('2026-05-12T11:26:40+02:00')).toBe(1778578000);
    expect(rfc3339ToEpochSeconds('2026-05-12t11:26:40,5+0200')).toBe(1778578000.5);
    expect(rfc3339ToEpochSeconds('2026-05-12T09:26:40')).toBeUndefined();
  });
});

describe('LogLineReader: docker json-file', () => {
  const docker = (log: string, stream: string, time?: string): string => JSON.stringify({ log, stream, ...(time ? { time } : {}) });

  it('unwraps the log string, joins records without "\\n" per stream, and takes the first record\'s time', async () => {
    const lines = [
      docker('start\n', 'stdout', T1),
      docker('{"a":', 'stdout', T1),
      docker('oops\r\n', 'stderr', T2),
      docker('1}\n', 'stdout', T2),
    ].join('\n');
    const read = await readAll(Readable.from([lines]));
    expect(read.lines).toEqual([
      { text: 'start', repairs: [], line: 1, time: rfc3339ToEpochSeconds(T1), parsed: undefined },
      { text: 'oops', repairs: [], line: 3, time: rfc3339ToEpochSeconds(T2), parsed: undefined },
      { text: '{"a":1}', repairs: [], line: 2, time: rfc3339ToEpochSeconds(T1), parsed: undefined },
    ]);
    expect(read.linesRead).toBe(4);
  });

  it('counts the repairs of the record that ends the line with the line\'s own', async () => {
    const line = Buffer.concat([Buffer.from('{"log":"{\\"n\\":1e999,\\"s\\":\\"'), Buffer.from([0xff]), Buffer.from('\\"}\\n","stream":"stdout"}\n')]);
    const read = await readAll(Readable.from([line]));
    expect(read.lines.map((l) => [l.text, l.repairs])).toEqual([['{"n":"1e999","s":"\uFFFD"}', ['invalid-utf8', 'number-overflow']]]);
  });

  it('a record with an eventType is an event that holds log and stream, not a json-file record', () => {
    expect(parseJsonLogLine('{"log":"x","stream":"stdout","eventType":"e"}')).toEqual({ kind: 'json', value: { log: 'x', stream: 'stdout', eventType: 'e' } });
    expect(parseJsonLogLine('  {"log":"x\\n","stream":"stdout","time":1}')).toEqual({ kind: 'docker', line: { time: undefined, stream: 'stdout', partial: false, content: 'x' } });
    expect(parseJsonLogLine('{"log":')).toEqual({ kind: 'other' });
    expect(parseJsonLogLine('[1]')).toEqual({ kind: 'other' });
  });
});

describe('LogLineReader: JSONL', () => {
  it('gives each line with its JSON value when it parsed it, drops a leading byte order mark only, and reads CRLF', async () => {
    const bom = '\uFEFF';
    const read = await readAll(Readable.from([Buffer.from(`${bom}{"a":1}\r\nplain\r\n${bom}[2]\n\n{"b":`, 'utf8')]));
    expect(read.lines).toEqual([
      { text: '{"a":1}', repairs: [], line: 1, time: undefined, parsed: { value: { a: 1 } } },
      { text: 'plain', repairs: [], line: 2, time: undefined, parsed: undefined },
      { text: `${bom}[2]`, repairs: [], line: 3, time: undefined, parsed: undefined },
      { text: '', repairs: [], line: 4, time: undefined, parsed: undefined },
      { text: '{"b":', repairs: [], line: 5, time: undefined, parsed: undefined },
    ]);
    expect(read.linesRead).toBe(5);
  });

  it('reads streams of strings as their UTF-8 bytes', async () => {
    const read = await readAll(Readable.from(['{"a":"é', '東"}\n']));
    expect(read.lines.map((l) => l.text)).toEqual(['{"a":"é東"}']);
  });
});

describe('log sources', () => {
  it('opens files, decompresses .gz, gives stdin for - and names each', async () => {
    const plain = join(dir, 'a.log');
    const gz = join(dir, 'a.log.gz');
    writeFileSync(plain, 'one\ntwo\n');
    writeFileSync(gz, gzipSync(Buffer.from('three\n')));
    const stdin = Readable.from(['four\n']);
    const stream = Readable.from(['five\n']);
    const texts = async (source: Parameters<typeof openLogSource>[0]) => (await readAll(await openLogSource(source, stdin))).lines.map((l) => l.text);
    expect(await texts(plain)).toEqual(['one', 'two']);
    expect(await texts(gz)).toEqual(['three']);
    expect(await texts('-')).toEqual(['four']);
    expect(await texts({ name: 'app', stream })).toEqual(['five']);
    expect([plain, '-', { name: 'app', stream }].map(logSourceName)).toEqual([plain, 'stdin', 'app']);
  });

  it('rejects a file that cannot be opened, and surfaces a corrupt .gz while reading', async () => {
    await expect(openLogSource(join(dir, 'missing.log'))).rejects.toThrow(/ENOENT/);
    const bad = join(dir, 'bad.log.gz');
    writeFileSync(bad, Buffer.from('not gzip'));
    await expect(readAll(await openLogSource(bad))).rejects.toThrow(/incorrect header check/);
  });
});
