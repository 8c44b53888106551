// Our Fluent Bit Lua filters run for real under luajit (the LuaJIT Fluent Bit embeds), fed record["log"] exactly as
// Fluent Bit hands it to a filter. One luajit process per call runs every line: a driver reads `<length>\n<bytes>`
// records, calls the filter function as Fluent Bit does (tag, timestamp, record of strings) and writes
// `<code> <timestamp> <other fields> <length>\n<log bytes>` for each, so a test sees whether anything but the log changed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';

export interface LuaResult {
  readonly code: number;
  readonly log: Buffer;
  /** The timestamp and the record's other fields as the driver prints them. */
  readonly rest: string;
}

/** `rest` of a record whose timestamp and other fields the filter left alone. */
export const UNCHANGED_REST = '1778578000.5 stdout2026-05-12T09:26:40.123456789ZF';

/** Whether luajit runs here. Without it: a failure under CI=true, else a warning (the caller's suite skips). */
export function luajitAvailable(scriptName: string): boolean {
  const available = spawnSync('luajit', ['-v'], { encoding: 'utf8' }).status === 0;
  if (!available) {
    if (process.env['CI'] === 'true') throw new Error('luajit is required in CI (apt-get install luajit)');
    console.warn(`[skip] ${scriptName} tests skipped: no luajit on this machine (apt-get install luajit)`);
  }
  return available;
}

/** Runs `functionName` of `script` over lines in one luajit process; its temporary folder goes after the file's tests. */
export function luaLogFilter(script: string, functionName: string): (lines: readonly Buffer[]) => LuaResult[] {
  const dir = mkdtempSync(join(tmpdir(), 'wi-lua-filter-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const driver = join(dir, 'driver.lua');
  writeFileSync(
    driver,
    `dofile(arg[1])
local f = assert(io.open(arg[2], "rb")); local data = f:read("*a"); f:close()
local out, p = {}, 1
while p <= #data do
  local nl = data:find("\\n", p, true)
  local len = tonumber(data:sub(p, nl - 1))
  local line = data:sub(nl + 1, nl + len)
  p = nl + len + 1
  local record = { log = line, stream = "stdout", time = "2026-05-12T09:26:40.123456789Z", _p = "F" }
  local code, ts, rec = ${functionName}("kube.var.log.containers.app", 1778578000.5, record)
  out[#out + 1] = code .. " " .. ts .. " " .. rec.stream .. rec.time .. rec._p .. " " .. #rec.log .. "\\n" .. rec.log
end
io.stdout:write(table.concat(out))
`,
  );
  return (lines) => {
    const input = join(dir, 'lines.bin');
    writeFileSync(input, Buffer.concat(lines.flatMap((l) => [Buffer.from(`${l.length}\n`), l])));
    const result = spawnSync('luajit', [driver, script, input], { maxBuffer: 1 << 30 });
    expect(result.stderr.toString()).toBe('');
    expect(result.status).toBe(0);
    const out = result.stdout;
    const results: LuaResult[] = [];
    for (let p = 0; p < out.length; ) {
      const nl = out.indexOf(0x0a, p);
      const [code, ts, rest, length] = out.subarray(p, nl).toString('latin1').split(' ');
      results.push({ code: Number(code), log: out.subarray(nl + 1, nl + 1 + Number(length)), rest: `${ts} ${rest}` });
      p = nl + 1 + Number(length);
    }
    expect(results).toHaveLength(lines.length);
    return results;
  };
}
