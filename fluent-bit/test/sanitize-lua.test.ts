// fluent-bit/postgresql/sanitize.lua, executed for real under luajit (the LuaJIT that Fluent Bit embeds).
// Values are built as Lua tables in a small harness, as Fluent Bit hands them to the filter.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLUENT_BIT_ROOT } from '../model/load-config.js';

const SCRIPT = join(FLUENT_BIT_ROOT, 'postgresql', 'sanitize.lua');
const luajit = spawnSync('luajit', ['-v'], { encoding: 'utf8' });
const available = luajit.status === 0;
if (!available) {
  if (process.env['CI'] === 'true') throw new Error('luajit is required in CI (apt-get install luajit)');
  console.warn('[skip] sanitize.lua tests skipped: no luajit on this machine (apt-get install luajit)');
}

/** Runs Lua statements after loading the script; returns stdout lines. */
function lua(body: string): string[] {
  const program = `dofile(${JSON.stringify(SCRIPT)})\n${body}`;
  const result = spawnSync('luajit', ['-e', program], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter((l) => l !== '');
}

describe.skipIf(!available)('sanitize.lua under luajit', () => {
  it('leaves an ordinary event untouched (return code 0: Fluent Bit keeps the original record)', () => {
    expect(lua(`
      local code, ts, r = sanitize_record("kube.x", 1778577243.5, { eventType = "io.serverlessworkflow.task.started.v1", timestamp = 1778577243.512566, input = { qty = 2, tags = { "vip", "früh" } } })
      print(code, ts, r.eventType, r.timestamp == 1778577243.512566, r.input.tags[2])`)).toEqual(['0\t1778577243.5\tio.serverlessworkflow.task.started.v1\ttrue\tfrüh']);
  });

  it('replaces NUL characters anywhere (nested objects and arrays) with U+FFFD and reports the change', () => {
    expect(lua(`
      local code, ts, r = sanitize_record("kube.x", 1, { eventType = "e", input = { note = "a\\0b\\0", list = { "x", "y\\0" } } })
      print(code, r.input.note, r.input.list[1], r.input.list[2], #r.input.list)`)).toEqual(['2\ta\u{FFFD}b\u{FFFD}\tx\ty\u{FFFD}\t2']);
  });

  it('replaces non-finite numbers with strings and keeps arrays dense', () => {
    expect(lua(`
      local code, ts, r = sanitize_record("kube.x", 7, { eventType = "e", output = { 1, math.huge, -math.huge, 0/0, 3 } })
      local o = r.output
      print(code, ts, #o, o[1], o[2], o[3], o[4], o[5])`)).toEqual(['2\t7\t5\t1\tInfinity\t-Infinity\tNaN\t3']);
  });
});
