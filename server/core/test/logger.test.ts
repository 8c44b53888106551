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
