// The three readers of split CRI lines join them alike: `init-job ingest` (LogLineReader), our configuration (the
// cri_line regex parser, then join-partial-lines.lua) and the built-in `multiline.parser cri`, all on the joining
// of @workflow-index/events. Where they differ is each one's own and shown here: the built-in parser's global flush
// tick cuts a line whose parts straddle it; at the end of the input the reader hands out a cut line, the built-in
// parser emits it at its tick, and the join script holds it for as long as Fluent Bit runs.
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LogLineReader } from '@workflow-index/events';
import { MULTILINE_FLUSH_SECONDS, readTailRecords, physicalLines } from '../model/builtin-multiline.js';
import { FluentMap } from '../model/fluent-value.js';
import { loadFluentBitConfig } from '../model/load-config.js';
import { partialLineJoiner } from '../model/lua-filter.js';
import { regexLineParser } from '../model/regex-parser.js';

const TAG = 'kube.var.log.containers.app.log';
const T = '2026-05-12T09:26:40.123456789Z';
const criLine = regexLineParser(loadFluentBitConfig('postgresql').parsers, 'cri_line');

interface Part {
  readonly stream: 'stdout' | 'stderr';
  readonly bytes: Buffer;
  readonly last: boolean;
}

const file = (parts: readonly Part[]): Buffer =>
  Buffer.concat(parts.map((p) => Buffer.concat([Buffer.from(`${T} ${p.stream} ${p.last ? 'F' : 'P'} `), p.bytes, Buffer.from('\n')])));

/** `init-job ingest`: whole lines, then the unfinished ones. */
async function readerLines(content: Buffer): Promise<{ lines: string[]; unfinished: string[] }> {
  const reader = new LogLineReader(Readable.from([content]));
  const lines: string[] = [];
  for await (const line of reader.lines()) lines.push(line.text);
  return { lines, unfinished: reader.unfinished().map((l) => l.text) };
}

/** Our configuration: the joined `log` of every record join-partial-lines.lua lets through. */
function scriptLines(content: Buffer): string[] {
  const join = partialLineJoiner();
  const out: string[] = [];
  for (const { line } of physicalLines(content)) {
    const parsed = criLine.parse(line);
    const record = parsed?.record ?? new FluentMap([['log', line]]);
    const result = join(TAG, record);
    if (result.code === -1) continue;
    const log = ('record' in result ? result.record : record).get('log');
    out.push(Buffer.isBuffer(log) ? log.toString('utf8') : '');
  }
  return out;
}

/** The built-in `multiline.parser cri`, every line read `arrival(line)` seconds after the input started. */
function builtinLines(content: Buffer, arrival: (line: number) => number = () => 0): string[] {
  return readTailRecords(content, ['cri'], () => 0, arrival).map((r) => (r.record.get('log') as Buffer).toString('utf8'));
}

// Printed lines with multi-byte characters, so that cuts fall inside them; none is empty (an F part with no
// content has no `log` for the script, which the reader sees as an empty line: not what this compares).
const printed = fc.string({ unit: fc.constantFrom('a', ' ', 'é', '東', '📦', '"'), minLength: 1, maxLength: 16 });
const output = fc.array(fc.record({ stream: fc.constantFrom('stdout' as const, 'stderr' as const), text: printed, cuts: fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 3 }) }), { minLength: 1, maxLength: 10 });

/** The runtime's parts of each printed line, lines of a stream one after the other, the two streams interleaved. */
function split(lines: readonly { stream: 'stdout' | 'stderr'; text: string; cuts: readonly number[] }[], choices: readonly boolean[]): Part[] {
  const streams = (['stdout', 'stderr'] as const).map((stream) => lines.filter((l) => l.stream === stream).flatMap((l) => {
    const bytes = Buffer.from(l.text, 'utf8');
    const offsets = [...new Set(l.cuts.filter((c) => c < bytes.length))].sort((a, b) => a - b);
    const bounds = [0, ...offsets, bytes.length];
    return bounds.slice(1).map((end, i): Part => ({ stream, bytes: bytes.subarray(bounds[i], end), last: i === bounds.length - 2 }));
  }));
  const out: Part[] = [];
  let c = 0;
  while (streams[0]!.length > 0 || streams[1]!.length > 0) {
    const pick = streams[0]!.length === 0 ? 1 : streams[1]!.length === 0 ? 0 : choices[c++] ? 1 : 0;
    out.push(streams[pick]!.shift()!);
  }
  return out;
}

describe('joining split CRI lines: one joining, three readers', () => {
  it('every reader gives the printed lines, in the order their F parts come, for any split and interleaving', async () => {
    await fc.assert(fc.asyncProperty(output, fc.array(fc.boolean(), { maxLength: 40 }), async (lines, choices) => {
      const parts = split(lines, choices);
      const content = file(parts);
      // The printed lines in the order their last parts were written.
      const streams = { stdout: lines.filter((l) => l.stream === 'stdout'), stderr: lines.filter((l) => l.stream === 'stderr') };
      const expected = parts.filter((p) => p.last).map((p) => streams[p.stream].shift()!.text);
      expect(await readerLines(content)).toEqual({ lines: expected, unfinished: [] });
      expect(scriptLines(content)).toEqual(expected);
      expect(builtinLines(content)).toEqual(expected);
    }), { numRuns: 200 });
  });

  it('the built-in parser alone cuts a line whose parts straddle its flush tick', async () => {
    const content = file([{ stream: 'stdout', bytes: Buffer.from('東京'), last: false }, { stream: 'stdout', bytes: Buffer.from('駅'), last: true }]);
    const straddling = (line: number): number => (line === 1 ? MULTILINE_FLUSH_SECONDS - 0.05 : MULTILINE_FLUSH_SECONDS + 0.05);
    expect(builtinLines(content, straddling)).toEqual(['東京', '駅']);
    expect(scriptLines(content)).toEqual(['東京駅']);
    expect((await readerLines(content)).lines).toEqual(['東京駅']);
  });

  it('at the end of the input: the reader hands out the cut line, the built-in parser emits it, the script holds it', async () => {
    const content = file([{ stream: 'stdout', bytes: Buffer.from('whole'), last: true }, { stream: 'stdout', bytes: Buffer.from('cut'), last: false }]);
    expect(await readerLines(content)).toEqual({ lines: ['whole'], unfinished: ['cut'] });
    expect(builtinLines(content)).toEqual(['whole', 'cut']);
    expect(scriptLines(content)).toEqual(['whole']);
  });
});
