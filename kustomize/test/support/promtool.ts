// promtool (Debian package `prometheus`) checks and unit-tests the alerting rules. Required in CI; elsewhere a
// missing promtool skips the suites with a message.
import { spawnSync } from 'node:child_process';

let available: boolean | undefined;
export function promtoolAvailable(): boolean {
  if (available !== undefined) return available;
  const result = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  available = result.status === 0;
  if (!available) {
    if (process.env['CI'] === 'true') throw new Error('promtool is required in CI to test the alerting rules (apt-get install prometheus)');
    console.warn('[skip] promtool suites skipped: no promtool on PATH (Debian package `prometheus`)');
  }
  return available;
}

export function promtool(args: readonly string[], cwd: string): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
