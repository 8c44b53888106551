import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { get, testApp } from './helpers.js';

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
