import { Writable } from 'node:stream';
import { createApp } from '@workflow-index/core';
import type { App } from '@workflow-index/core';
import { loadCoreConfig } from '@workflow-index/core';
import type { CoreConfig } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
import type { Logger } from '@workflow-index/core';
import type { Reader } from '@workflow-index/core';
import { RecordingReader } from './recording-reader.js';

/** Log entries written through a pino logger, parsed. */
export class MemoryLog {
  readonly entries: Record<string, unknown>[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') this.entries.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  logger(level: 'debug' | 'info' = 'debug'): Logger {
    return createLogger({ log: { level, format: 'json' } }, this.stream);
  }
}

/** A production-mode config from environment-style keys (so the tests go through the same parsing). */
export function testConfig(env: Record<string, string> = {}): CoreConfig {
  return loadCoreConfig({ NODE_ENV: 'production', HEALTH_DISK_PATH: '/', HEALTH_DISK_MIN_FREE_BYTES: '1', ...env });
}

export interface TestApp {
  readonly app: App;
  readonly reader: RecordingReader;
  readonly log: MemoryLog;
}

export function testApp(options: { env?: Record<string, string>; reader?: RecordingReader } = {}): TestApp {
  const log = new MemoryLog();
  const reader = options.reader ?? new RecordingReader();
  const app = createApp({ config: testConfig(options.env), reader: reader as Reader, logger: log.logger(), backend: 'test' });
  return { app, reader, log };
}

export function get(app: App, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return app.fetch(new Request(`http://localhost${path}`, { headers }));
}

