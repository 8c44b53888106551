// Child process of heap-tuning.test.ts: keeps about 40 MiB alive while it allocates objects that survive a few
// young-generation collections (promoted, then garbage), as a server building large responses does; prints the
// peak size of V8's old space. `tuned` as first argument applies tuneHeapGrowth first.
import v8 from 'node:v8';
import { tuneHeapGrowth } from '../src/heap-tuning.js';

const setting = process.argv[2] === 'tuned' ? tuneHeapGrowth() : 'V8 default';
const live = Array.from({ length: 400 }, (_, n) => Array.from({ length: 1000 }, (_, i) => `${'x'.repeat(100)}${n}:${i}`));
let peak = 0;
const recent: Array<Array<{ i: number; s: string }>> = [];
for (let round = 0; round < 300; round++) {
  recent.push(Array.from({ length: 20_000 }, (_, i) => ({ i, s: `y${i}` })));
  if (recent.length > 8) recent.shift();
  const oldSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
  peak = Math.max(peak, oldSpace?.space_size ?? 0);
}
process.stdout.write(`${JSON.stringify({ setting, live: live.length, peakOldSpaceMiB: Math.round(peak / 1048576) })}\n`);
