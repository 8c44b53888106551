// `npm run bench:ingest|bench:query|bench:push|bench:stats|bench:export [-- --backend postgresql|opensearch ...]`: runs the benchmark of that backend
// (default postgresql, whose scripts and JSON summary stay exactly as they were) with the other arguments, as a
// child process that inherits the terminal; its exit code is this process's, Ctrl-C reaches it too.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPTS = {
  ingest: { postgresql: './postgresql/ingest-bench.ts', opensearch: './opensearch/ingest-bench.ts' },
  query: { postgresql: './postgresql/query-bench.ts', opensearch: './opensearch/query-bench.ts' },
  push: { postgresql: './postgresql/push-bench.ts', opensearch: './opensearch/push-bench.ts' },
  stats: { postgresql: './postgresql/stats-bench.ts', opensearch: './opensearch/stats-bench.ts' },
  export: { postgresql: './postgresql/export-bench.ts', opensearch: './opensearch/export-bench.ts' },
} as const;
type Bench = keyof typeof SCRIPTS;
type Backend = keyof (typeof SCRIPTS)[Bench];

/** The benchmark and backend named on the command line, and the arguments left for the benchmark itself. */
export function parseDispatch(args: readonly string[]): { bench: Bench; backend: Backend; rest: string[] } | { problem: string } {
  const [bench, ...others] = args;
  if (!(typeof bench === 'string' && Object.hasOwn(SCRIPTS, bench))) return { problem: `first argument must be ${Object.keys(SCRIPTS).join(', ')}, got ${JSON.stringify(bench)}` };
  let backend = 'postgresql';
  const rest: string[] = [];
  for (let i = 0; i < others.length; i++) {
    const arg = others[i]!;
    if (arg === '--backend') backend = others[++i] ?? '';
    else if (arg.startsWith('--backend=')) backend = arg.slice('--backend='.length);
    else rest.push(arg);
  }
  if (backend !== 'postgresql' && backend !== 'opensearch') return { problem: `--backend must be postgresql or opensearch, got ${JSON.stringify(backend)}` };
  return { bench: bench as Bench, backend, rest };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const parsed = parseDispatch(process.argv.slice(2));
  if ('problem' in parsed) {
    process.stderr.write(`bench: ${parsed.problem}\n`);
    process.exit(2);
  }
  const script = fileURLToPath(new URL(SCRIPTS[parsed.bench][parsed.backend], import.meta.url));
  // The same loader flags this process runs with (--conditions=source --import tsx).
  const child = spawn(process.execPath, [...process.execArgv, script, ...parsed.rest], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 1 : 128);
  });
}
