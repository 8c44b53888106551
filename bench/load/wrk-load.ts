// Saturation load by wrk (Debian package `wrk`), the alternative to autocannon in bench:query (--load-generator wrk).
// autocannon runs in the bench's own Node process and spends about as much CPU per request as the floor's whole pg
// round trip; on a machine where the server, PostgreSQL and the load generator share two cores, that CPU is taken
// from the server. wrk is C on epoll and costs a fraction of it. Same rules as measureHttp: POST /graphql rotating
// through the request bodies, `connections` concurrent connections, and only answers with data counted
// (status 200 and no "errors" in the body); the latency percentiles are wrk's over every answer.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Measurement, round } from './http-load.js';

/** Whether `wrk` can be run (the bench refuses --load-generator wrk without it). */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;
}

// Each thread starts at its own offset in the bodies and rotates through them; done() prints one JSON line.
const SCRIPT = `
local bodies = {}
for line in io.lines(os.getenv("WI_WRK_BODIES")) do bodies[#bodies + 1] = line end
local threads = {}
local counter = 0
function setup(thread)
  thread:set("offset", counter)
  counter = counter + 1
  threads[#threads + 1] = thread
end
local next_body = 0
failures = 0
local headers = { ["Content-Type"] = "application/json" }
-- More headers (e.g. Authorization), one "Name: value" a line.
if os.getenv("WI_WRK_HEADERS") then
  for line in io.lines(os.getenv("WI_WRK_HEADERS")) do
    local name, value = line:match("^([^:]+):%s*(.*)$")
    if name then headers[name] = value end
  end
end
function init(args)
  next_body = offset * 7919
end
function request()
  next_body = next_body + 1
  return wrk.format("POST", "/graphql", headers, bodies[(next_body % #bodies) + 1])
end
function response(status, hdrs, body)
  if status ~= 200 or string.find(body, '"errors"', 1, true) then failures = failures + 1 end
end
function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do failed = failed + thread:get("failures") end
  local e = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"durationUs":%d,"failures":%d,"socketErrors":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.requests, summary.duration, failed, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
`;

/** wrk against /graphql at `connections` concurrent connections (two threads), rotating through the request bodies; `headers` on each. */
export async function measureWrk(baseUrl: string, bodies: readonly string[], options: { connections: number; duration: number; headers?: Readonly<Record<string, string>> }): Promise<Measurement> {
  const dir = mkdtempSync(join(tmpdir(), 'wi-wrk-'));
  try {
    const script = join(dir, 'graphql.lua');
    const bodiesFile = join(dir, 'bodies.jsonl');
    writeFileSync(script, SCRIPT);
    // JSON.stringify never leaves a raw newline in a body: one body per line.
    writeFileSync(bodiesFile, `${bodies.join('\n')}\n`);
    const headersFile = join(dir, 'headers.txt');
    writeFileSync(headersFile, Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}\n`).join(''));
    const threads = Math.max(1, Math.min(2, options.connections));
    const args = ['-t', String(threads), '-c', String(options.connections), '-d', `${options.duration}s`, '--timeout', '10s', '-s', script, `${baseUrl}/graphql`];
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', args, { env: { ...process.env, WI_WRK_BODIES: bodiesFile, WI_WRK_HEADERS: headersFile }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited with ${code}: ${err}${out}`))));
    });
    const line = output.split('\n').find((l) => l.startsWith('WRK_RESULT '));
    if (line === undefined) throw new Error(`wrk printed no result:\n${output}`);
    const r = JSON.parse(line.slice('WRK_RESULT '.length)) as { requests: number; durationUs: number; failures: number; socketErrors: number; p50Us: number; p99Us: number };
    const seconds = r.durationUs / 1e6;
    const answered = r.requests - r.failures;
    return { rps: round(answered / seconds, 1), p50Ms: round(r.p50Us / 1000), p99Ms: round(r.p99Us / 1000), requests: answered, failures: r.failures + r.socketErrors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
