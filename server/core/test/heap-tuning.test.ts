// tuneHeapGrowth (heap-tuning.ts): the server's fixed old-generation growing factor, and that V8 honours it when
// set at run time (it cannot be given through NODE_OPTIONS): with it, a process that keeps 40 MiB alive while it
// churns promoted garbage peaks at a much smaller old space than with V8's own factor.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, tuneHeapGrowth } from '../src/heap-tuning.js';

const SCRIPT = fileURLToPath(new URL('./heap-growth-script.ts', import.meta.url));

function peakOldSpaceMiB(mode: 'tuned' | 'default', nodeFlags: readonly string[] = []): { setting: string; peakOldSpaceMiB: number } {
  const run = spawnSync(process.execPath, [...nodeFlags, '--conditions=source', '--import', 'tsx', SCRIPT, mode], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as { setting: string; peakOldSpaceMiB: number };
}

describe('tuneHeapGrowth', () => {
  it('sets --heap-growing-percent unless the node command line has one (dashes or underscores)', () => {
    const set: string[] = [];
    expect(tuneHeapGrowth([], (flags) => set.push(flags))).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(tuneHeapGrowth(['--enable-source-maps', '--max-semi-space-size=4'], (flags) => set.push(flags))).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, `--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    set.length = 0;
    expect(tuneHeapGrowth(['--heap-growing-percent=50'], (flags) => set.push(flags))).toBe('--heap-growing-percent=50 (node command line)');
    expect(tuneHeapGrowth(['--heap_growing_percent', '35'], (flags) => set.push(flags))).toBe('--heap_growing_percent (node command line)');
    expect(set).toEqual([]);
  });

  it('bounds the old space of a process churning promoted garbage far below V8 default growth', () => {
    const untuned = peakOldSpaceMiB('default');
    const tuned = peakOldSpaceMiB('tuned');
    expect(tuned.setting).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    // About 40 MiB alive plus the eight recent batches: V8's own factor lets the old space grow to several times that.
    expect(tuned.peakOldSpaceMiB).toBeLessThan(untuned.peakOldSpaceMiB * 0.7);
  }, 120_000);

  it('leaves a growing factor given on the node command line in force', () => {
    const given = peakOldSpaceMiB('tuned', ['--heap-growing-percent=300']);
    expect(given.setting).toBe('--heap-growing-percent=300 (node command line)');
  }, 120_000);
});
