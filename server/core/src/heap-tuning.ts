// How far V8 lets the old generation grow past what survived the last full collection: it bounds the peak RSS at
// saturation and under the heaviest legal request. V8 picks the factor itself, between 1.1 and 4,
// from how fast it collects compared with how fast the program allocates; a server whose requests each build a
// large short-lived response is "fast to collect", so V8 lets the heap grow to several times what is alive and
// the process keeps that memory (the resident high-water mark is what a container limit and the bench see).
// A fixed factor of 1.2 collects sooner at the price of more full collections (the peak RSS it keeps: docs/benchmarks.md;
// the image's settings: docs/deployment.md, "What the images and pods do").
//
// `--heap-growing-percent` is read by V8 each time it recomputes the limit, so setting it at start-up takes
// effect; NODE_OPTIONS refuses it, so the server sets it itself. An operator who passes the flag on the node
// command line (`node --heap-growing-percent=<n> …/main.js`) keeps theirs.
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 20;

const FLAG = '--heap-growing-percent';

/** The flag this process was started with on the node command line, if any. */
function givenFlag(execArgv: readonly string[]): string | undefined {
  // V8 takes its flags with dashes or underscores.
  return execArgv.find((arg) => arg.replaceAll('_', '-').startsWith(FLAG));
}

/**
 * Sets V8's old-generation growing factor to 1 + HEAP_GROWING_PERCENT / 100 unless the process was started
 * with its own; returns the setting in force, for the start-up log.
 */
export function tuneHeapGrowth(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = v8.setFlagsFromString): string {
  const given = givenFlag(execArgv);
  if (given !== undefined) return `${given} (node command line)`;
  const setting = `${FLAG}=${HEAP_GROWING_PERCENT}`;
  setFlags(setting);
  return setting;
}
