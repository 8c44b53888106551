// fluent-bit/postgresql/join-partial-lines.lua executed for real under luajit (the LuaJIT Fluent Bit embeds), fed
// the records the tail input's cri_line parser makes, in file order, with one Lua state for the whole run as
// in the binary; and its TypeScript stand-in (partialLineJoiner, used by the pipeline model) held to the same
// results on generated interleavings of split lines. Models observed defect 3 (a split line must be joined
// however long the pause between its parts: the script has no timer at all).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLUENT_BIT_ROOT } from '../model/load-config.js';
import { FluentMap } from '../model/fluent-value.js';
import { partialLineJoiner } from '../model/lua-filter.js';

const SCRIPT = join(FLUENT_BIT_ROOT, 'postgresql', 'join-partial-lines.lua');
const available = spawnSync('luajit', ['-v'], { encoding: 'utf8' }).status === 0;
if (!available) {
  if (process.env['CI'] === 'true') throw new Error('luajit is required in CI (apt-get install luajit)');
  console.warn('[skip] join-partial-lines.lua tests skipped: no luajit on this machine (apt-get install luajit)');
}

interface Part {
  readonly tag: string;
  readonly stream: 'stdout' | 'stderr';
  readonly flag: 'P' | 'F';
  readonly log: string;
}

/** What came out for each input record: `drop`, `keep`, or `<code> <log> [truncated=<n>]` for a replaced record. */
type Outcome = string;

// Lua strings are bytes; the harness passes each log as hex so any byte survives the command line.
const hex = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

function runLua(parts: readonly Part[], maxJoinedBytes?: number): Outcome[] {
  const calls = parts.map((p) => `run(${JSON.stringify(p.tag)}, ${JSON.stringify(p.stream)}, ${JSON.stringify(p.flag)}, ${JSON.stringify(hex(p.log))})`).join('\n');
  const program = `dofile(${JSON.stringify(SCRIPT)})
${maxJoinedBytes === undefined ? '' : `MAX_JOINED_BYTES = ${maxJoinedBytes}`}
local function unhex(s) return (s:gsub('..', function(h) return string.char(tonumber(h, 16)) end)) end
function run(tag, stream, flag, loghex)
  local record = { time = "2026-05-12T09:14:03.512700445Z", stream = stream, _p = flag, log = unhex(loghex) }
  local code, ts, out = join_partial_lines(tag, 1778577243.5127, record)
  if code == -1 then print("drop")
  elseif code == 0 then print("keep")
  else
    local line = tostring(code) .. " " .. out.log
    if out.wi_join_truncated ~= nil then line = line .. " truncated=" .. out.wi_join_truncated end
    if out.wi_join_orphan ~= nil then line = line .. " orphan=" .. out.wi_join_orphan end
    print(line)
  end
end
${calls}`;
  const result = spawnSync('luajit', ['-'], { input: program, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n').slice(0, -1);
}

function runModel(parts: readonly Part[], maxJoinedBytes?: number): Outcome[] {
  const join = partialLineJoiner(maxJoinedBytes);
  return parts.map((p) => {
    const result = join(p.tag, new FluentMap([['time', '2026-05-12T09:14:03.512700445Z'], ['stream', p.stream], ['_p', p.flag], ['log', Buffer.from(p.log, 'utf8')]]));
    if (result.code === -1) return 'drop';
    if (!('record' in result)) return 'keep';
    const truncated = result.record.get('wi_join_truncated');
    const orphan = result.record.get('wi_join_orphan');
    return `${result.code} ${(result.record.get('log') as Buffer).toString('utf8')}${truncated === undefined ? '' : ` truncated=${String(truncated)}`}${orphan === undefined ? '' : ` orphan=${String(orphan)}`}`;
  });
}

const A = 'kube.var.log.containers.a.log';
const B = 'kube.var.log.containers.b.log';

describe.skipIf(!available)('join-partial-lines.lua under luajit', () => {
  it('holds P parts (dropped records) and emits the joined line on F, per file and stream, whatever lies in between', () => {
    const parts: Part[] = [
      { tag: A, stream: 'stdout', flag: 'P', log: '{"eventType":"x",' },
      { tag: A, stream: 'stderr', flag: 'F', log: 'stack trace' },
      { tag: B, stream: 'stdout', flag: 'P', log: '{"other":' },
      { tag: A, stream: 'stdout', flag: 'P', log: '"input":"é' },
      { tag: B, stream: 'stdout', flag: 'F', log: '1}' },
      { tag: A, stream: 'stdout', flag: 'F', log: '"}' },
      { tag: A, stream: 'stdout', flag: 'F', log: '{"whole":true}' },
    ];
    const expected = ['drop', 'keep', 'drop', 'drop', '2 {"other":1}', '2 {"eventType":"x","input":"é"}', 'keep'];
    expect(runLua(parts)).toEqual(expected);
    expect(runModel(parts)).toEqual(expected);
  });

  it('ends a line at an F part without `log` (a line of exactly 16 KiB: the parser skips the empty content)', () => {
    const program = `dofile(${JSON.stringify(SCRIPT)})
join_partial_lines("t", 1, { stream = "stdout", _p = "P", log = "abc" })
local code, ts, out = join_partial_lines("t", 2, { stream = "stdout", _p = "F" })
print(code, out.log)
code, ts, out = join_partial_lines("t", 3, { stream = "stdout", _p = "F", log = "next" })
print(code, out.log)`;
    expect(spawnSync('luajit', ['-'], { input: program, encoding: 'utf8' }).stdout).toBe('2\tabc\n0\tnext\n');
    const join = partialLineJoiner();
    join('t', new FluentMap([['stream', 'stdout'], ['_p', 'P'], ['log', Buffer.from('abc')]]));
    const ended = join('t', new FluentMap([['stream', 'stdout'], ['_p', 'F']]));
    expect('record' in ended && (ended.record.get('log') as Buffer).toString()).toBe('abc');
  });

  it('passes records without a P/F flag untouched (a line the CRI regex did not match)', () => {
    const program = `dofile(${JSON.stringify(SCRIPT)})
local r = { log = "not a cri line" }
local code, ts, out = join_partial_lines("t", 1.5, r)
print(code, ts, out == r)`;
    const result = spawnSync('luajit', ['-'], { input: program, encoding: 'utf8' });
    expect(result.stdout).toBe('0\t1.5\ttrue\n');
  });

  it('caps a joined line: the text up to the cap is emitted once, at its F part, marked with the whole line\'s size', () => {
    const parts: Part[] = [
      { tag: A, stream: 'stdout', flag: 'P', log: '{"eventType"' },
      { tag: A, stream: 'stdout', flag: 'P', log: ':"io.x","a":"0123' },
      { tag: A, stream: 'stdout', flag: 'P', log: '456789' },
      { tag: A, stream: 'stdout', flag: 'F', log: '"}' },
      { tag: A, stream: 'stdout', flag: 'F', log: '{"next":1}' },
    ];
    // Observed before: the cut was emitted at the P part that crossed the cap, with the bytes seen there (29).
    const expected = ['drop', 'drop', 'drop', '2 {"eventType":"io.x", truncated=37', 'keep'];
    expect(runLua(parts, 20)).toEqual(expected);
    expect(runModel(parts, 20)).toEqual(expected);
    // Exceeding the cap only with the F part: the joined text is cut there.
    const late: Part[] = [{ tag: A, stream: 'stdout', flag: 'P', log: '0123456789' }, { tag: A, stream: 'stdout', flag: 'F', log: 'abcdefghijklmn' }];
    expect(runLua(late, 20)).toEqual(['drop', '2 0123456789abcdefghij truncated=24']);
    expect(runModel(late, 20)).toEqual(['drop', '2 0123456789abcdefghij truncated=24']);
  });

  it('marks the end of a line whose first parts a stopped process held: the first part of its file and stream, an F that ends a JSON object without starting one', () => {
    const parts: Part[] = [
      { tag: B, stream: 'stderr', flag: 'P', log: 'xx' },
      { tag: B, stream: 'stderr', flag: 'F', log: '"}' },
      { tag: A, stream: 'stdout', flag: 'F', log: '2345","status":"COMPLETED"}' },
      { tag: A, stream: 'stdout', flag: 'F', log: 'x"}' },
      { tag: A, stream: 'stderr', flag: 'F', log: 'at org.acme.Main.run(Main.java:12)' },
      { tag: B, stream: 'stdout', flag: 'F', log: '{"eventType":"io.x"}' },
    ];
    // Only the first: afterwards an F with nothing held is a whole line (a plain log line, a JSON line).
    const expected = ['drop', '2 xx"} orphan=4', '2 2345","status":"COMPLETED"} orphan=27', 'keep', 'keep', 'keep'];
    expect(runLua(parts)).toEqual(expected);
    expect(runModel(parts)).toEqual(expected);
  });

  it('the TypeScript stand-in answers exactly as the script for any interleaving of files, streams and flags', () => {
    const part = fc.record({
      tag: fc.constantFrom(A, B),
      stream: fc.constantFrom('stdout' as const, 'stderr' as const),
      flag: fc.constantFrom('P' as const, 'F' as const),
      log: fc.string({ unit: fc.constantFrom('a', '{', '}', '"', 'é', '東', '\\', ' '), maxLength: 8 }),
    });
    fc.assert(fc.property(fc.array(part, { maxLength: 30 }), fc.integer({ min: 4, max: 40 }), (parts, cap) => {
      expect(runModel(parts, cap)).toEqual(runLua(parts, cap));
    }), { numRuns: 40 });
  });
});
