import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { get, testApp } from '@workflow-index/testkit';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** Runs `body` (with createLogger imported, stdout logging) in a child process until it has written `count` lines. */
async function firstLines(body: string, count: number): Promise<string[]> {
  const logger = fileURLToPath(new URL('../src/logger.ts', import.meta.url));
  const script = `const { createLogger } = await import(${JSON.stringify(logger)});\n${body}`;
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    return await new Promise<string[]>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const lines = out.split('\n').slice(0, -1);
        if (lines.length >= count) resolve(lines);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code} after writing ${JSON.stringify(out)}`)));
    });
  } finally {
    child.kill('SIGKILL');
  }
}

describe('createLogger', () => {
  it('stdout (asynchronous): every line written before process.exit reaches the pipe, in order', async () => {
    const logger = fileURLToPath(new URL('../src/logger.ts', import.meta.url));
    const script = `
      const { createLogger } = await import(${JSON.stringify(logger)});
      const log = createLogger({ log: { level: 'info', format: 'json' } });
      for (let i = 0; i < 5000; i++) log.info({ i }, 'request');
      process.exit(0);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    const numbers = stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { i: number }).i);
    expect(numbers).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  }, 150_000);

  it('stdout: request lines that trickle in leave in batches, each line once and in order', async () => {
    const logger = fileURLToPath(new URL('../src/logger.ts', import.meta.url));
    // sonic-boom writes through fs.write: count the writes while 300 lines arrive one per timer turn (as request
    // lines do at saturation: each write completes before the next line comes).
    const script = `
      const fs = (await import('node:fs')).default;
      const write = fs.write;
      let writes = 0;
      fs.write = (...args) => { writes += 1; return write(...args); };
      const { createLogger } = await import(${JSON.stringify(logger)});
      const log = createLogger({ log: { level: 'info', format: 'json' } });
      for (let i = 0; i < 300; i++) {
        log.info({ i }, 'request');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      process.on('exit', () => process.stderr.write(String(writes)));`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    const numbers = stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { i: number }).i);
    expect(numbers).toEqual(Array.from({ length: 300 }, (_, i) => i));
    // One write per line without the buffer; with it, about one per LOG_BUFFER_BYTES of lines.
    expect(Number(stderr)).toBeLessThanOrEqual(30);
  }, 150_000);

  it('stdout: each write is whole lines of at most PIPE_BUF bytes, so processes sharing one pipe (SERVER_PROCESSES) never interleave within a line', async () => {
    const logger = fileURLToPath(new URL('../src/logger.ts', import.meta.url));
    // POSIX makes a write to a pipe atomic up to PIPE_BUF (4096 bytes on Linux): record every write's size and end.
    const script = `
      const fs = (await import('node:fs')).default;
      const write = fs.write;
      const sizes = [];
      let ragged = 0;
      fs.write = (fd, data, ...rest) => {
        const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
        sizes.push(Buffer.byteLength(text));
        if (!text.endsWith('\\n')) ragged += 1;
        return write(fd, data, ...rest);
      };
      const { createLogger } = await import(${JSON.stringify(logger)});
      const log = createLogger({ log: { level: 'info', format: 'json' } });
      const pad = 'x'.repeat(700);
      for (let i = 0; i < 3000; i++) {
        log.info({ i, pad }, 'request');
        if (i % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      process.on('exit', () => process.stderr.write(JSON.stringify({ writes: sizes.length, largest: Math.max(...sizes), ragged })));`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    const numbers = stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { i: number }).i);
    expect(numbers).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    const writes = JSON.parse(stderr) as { writes: number; largest: number; ragged: number };
    expect(writes.largest).toBeLessThanOrEqual(4096);
    expect(writes.ragged).toBe(0);
    // Still batched: several ~770-byte lines per write.
    expect(writes.writes).toBeLessThan(3000 / 3);
  }, 150_000);

  it('stdout: a request line on a quiet server is written without waiting for the buffer to fill or the process to exit', async () => {
    const lines = await firstLines(`
      createLogger({ log: { level: 'info', format: 'json' } }).info({ status: 200 }, 'request');
      setInterval(() => undefined, 1000);`, 1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'info', msg: 'request', status: 200 });
  }, 60_000);

  it('stdout: any other line is written at once, after the request lines buffered before it', async () => {
    // The event loop is then blocked for good: no periodic flush can run, only the write the line started.
    const lines = await firstLines(`
      const log = createLogger({ log: { level: 'info', format: 'json' } });
      log.info({ i: 0 }, 'request');
      log.info({ i: 1 }, 'request');
      log.info({ schemaVersion: 11 }, 'database schema matches this release');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);`, 3);
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['request', 'request', 'database schema matches this release']);
  }, 60_000);

  it('json: one JSON object per line with the level as a label and an ISO time', () => {
    const out = capture();
    const logger = createLogger({ log: { level: 'info', format: 'json' } }, out.stream);
    logger.debug('hidden');
    logger.info({ route: '/graphql' }, 'request');
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 'info', msg: 'request', route: '/graphql', service: 'workflow-index' });
    expect(String(entry['time'])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('pretty: human-readable single lines, not JSON', () => {
    const out = capture();
    const logger = createLogger({ log: { level: 'debug', format: 'pretty' } }, out.stream);
    logger.debug({ route: '/graphql' }, 'request');
    const text = out.text();
    expect(text).toMatch(/DEBUG.*request.*"route":"\/graphql"/);
    expect(() => JSON.parse(text)).toThrow();
    expect(text.trim().split('\n')).toHaveLength(1);
  });

  it('silent logs nothing', () => {
    const out = capture();
    createLogger({ log: { level: 'silent', format: 'json' } }, out.stream).error('nothing');
    expect(out.text()).toBe('');
  });
});

describe('App.dispose', () => {
  it('clears the metrics registry', async () => {
    const { app } = testApp();
    await get(app, '/q/health/live');
    expect(app.registry.getMetricsAsArray().length).toBeGreaterThan(0);
    await app.dispose();
    expect(app.registry.getMetricsAsArray()).toEqual([]);
  });
});
