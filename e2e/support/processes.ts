// Child processes of the local end-to-end suite: the init-job CLI, the server, the wait-for-schema script.
// Everything listens on loopback and is stopped by the suite that started it.
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '@workflow-index/testkit';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs TypeScript sources directly, as `npm run init` does. */
export const SOURCE_NODE_ARGS = ['--conditions=source', '--import', 'tsx'];

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runProcess(args: readonly string[], env: Record<string, string>, timeoutMs: number): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not finish within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RunningServer {
  readonly baseUrl: string;
  readonly output: () => string;
  /** SIGTERM, then the exit code (SIGKILL after the timeout). */
  stop(timeoutMs?: number): Promise<number | null>;
}

/** Starts `server/postgresql/src/main.ts` and waits until /q/health/ready answers 200. */
export async function startServer(env: Record<string, string>, readyTimeoutMs = 60_000): Promise<RunningServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...SOURCE_NODE_ARGS, join('server', 'postgresql', 'src', 'main.ts')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const server: RunningServer = {
    baseUrl,
    output: () => output,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/q/health/ready`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await server.stop();
  throw new Error(`server not ready within ${readyTimeoutMs} ms:\n${output}`);
}

/** The test kit's, for the suites that take their processes from here. */
export { freePort };
