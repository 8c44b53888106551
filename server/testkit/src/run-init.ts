// Runs the real init-job process the way `npm run init -- <args>` does, with a controlled environment.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface InitRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

const CONFIG_PREFIXES = ['DATABASE_', 'QUARKUS_DATASOURCE_', 'WORKFLOW_INDEX_'];

/** The parent's environment without any of the CLI's settings, plus `env`. */
export function cleanEnv(env: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !CONFIG_PREFIXES.some((p) => k.startsWith(p))) base[k] = v;
  }
  return { ...base, ...env };
}

export function runInit(args: readonly string[], env: Record<string, string> = {}, stdin?: string): Promise<InitRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'init-job/src/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: cleanEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
    child.stdin.end(stdin ?? '');
  });
}
