// main.ts as a child process, as `npm start`, `npm run serve:postgresql` and the image run it: from source, with
// only the given environment (nothing leaks in from the developer's shell), output captured for assertions.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface ServerProcess {
  readonly child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  readonly exited: Promise<number | null>;
}

export function startMain(env: Record<string, string>, args: readonly string[] = [], defaultWaitMs = 30_000): ServerProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', MAIN, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    for (const check of waiters) check();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    for (const check of waiters) check();
    resolve(code);
  }));
  return {
    child,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs = defaultWaitMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in:\n${output}`));
        }, timeoutMs);
        const check = (): void => {
          const match = pattern.exec(output);
          if (match) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(match);
          } else if (child.exitCode !== null) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`process exited (${child.exitCode}) before ${pattern} appeared:\n${output}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** SIGTERM, then the exit code. */
export async function stop(server: ServerProcess): Promise<number | null> {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
  return server.exited;
}
