// Builds the console with Vite unless dist/ is newer than every input, so `npm start` stays incremental.
// The build goes to a temporary folder renamed into place, so a server or a test reading dist/ never sees half a
// build, and two builds started at once (parallel test files) do not write into each other.
// Usage: node console/scripts/build.mjs [--force]
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const stamp = join(dist, 'index.html');
const inputs = ['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => join(root, p));

function newest(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), info.mtimeMs);
}

export function upToDate() {
  return existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...inputs.map(newest));
}

if (!process.argv.includes('--force') && upToDate()) process.exit(0);

const temporary = join(root, `.dist-${process.pid}`);
// Vite compiles JSX for development (every element carrying its file, line and column: +40 KB) unless NODE_ENV is
// production, and the test runner starts this script with NODE_ENV=test: the console is always built for production.
process.env.NODE_ENV = 'production';
const { build } = await import('vite');
try {
  await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn', build: { outDir: temporary, emptyOutDir: true } });
  // A build started at the same time may have finished first: keep its output rather than swap dist/ under a
  // server that is reading it.
  if (!upToDate()) {
    rmSync(dist, { recursive: true, force: true });
    renameSync(temporary, dist);
    console.log('console built into console/dist');
  }
} catch (error) {
  // Another build renamed its output into place first: theirs is as good as ours.
  if (!(error instanceof Error && 'code' in error && (error.code === 'ENOTEMPTY' || error.code === 'EEXIST') && existsSync(stamp))) throw error;
} finally {
  rmSync(temporary, { recursive: true, force: true });
}
