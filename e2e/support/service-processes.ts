// Long-running child processes of the local end-to-end suites started from their TypeScript entry points (what
// the npm scripts run): ready once their health endpoint answers 200, stopped with SIGTERM (SIGKILL after a
// timeout), and killed when the test process exits, so none outlives a failed suite.
import { type ChildProcess, spawn } from 'node:child_process';
import { REPO_ROOT, SOURCE_NODE_ARGS, freePort } from './processes.js';

export interface ServiceProcess {
  readonly baseUrl: string;
  readonly pid: number;
  readonly output: () => string;
  /** SIGTERM, then the exit code (SIGKILL after the timeout). */
  stop(timeoutMs?: number): Promise<number | null>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `entry` (a path under the repository) with `env` plus the port variable `portVariable` set to a free port,
 * and waits until `readyPath` answers 200 on it.
 */
export async function startService(entry: string, env: Record<string, string>, options: { portVariable: string; readyPath?: string; readyTimeoutMs?: number }): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, entry], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env, [options.portVariable]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    running.delete(child);
    resolve(code);
  }));
  const baseUrl = `http://127.0.0.1:${port}`;
  const service: ServiceProcess = {
    baseUrl,
    pid: child.pid ?? -1,
    output: () => output,
    async stop(timeoutMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}${options.readyPath ?? '/q/health/ready'}`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return service;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await service.stop();
  throw new Error(`${entry} not ready within ${options.readyTimeoutMs ?? 90_000} ms:\n${output}`);
}
