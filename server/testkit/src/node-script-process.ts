// A module of ours run as a child process, as npm scripts and the images run it: from source through tsx, with only
// the given environment (nothing leaks in from the developer's shell), output captured for assertions.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ServerProcess {
  readonly child: ChildProcess;
  output(): string;
  /** The first match of `pattern` in the output; rejects when the process exits or the time is up first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  readonly exited: Promise<number | null>;
}

export interface ScriptOptions {
  readonly args?: readonly string[];
  /** waitFor's timeout when the call gives none. */
  readonly defaultWaitMs?: number;
  /** SIGKILL after this long, so a test that fails before stopping the child never leaves it running. */
  readonly killAfterMs?: number;
}

export function startNodeScript(script: string, env: Record<string, string>, options: ScriptOptions = {}): ServerProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script, ...(options.args ?? [])], {
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
  if (options.killAfterMs !== undefined) {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    void exited.then(() => clearTimeout(timer));
  }
  return {
    child,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs = options.defaultWaitMs ?? 30_000) {
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
