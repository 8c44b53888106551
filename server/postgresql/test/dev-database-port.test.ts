// The embedded development database's port: the one DEV_DATABASE_PORT names while it is free (so `psql -p` works the
// same after every restart), a free one, with a warning, when another process holds it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@workflow-index/testkit';
import { startEmbeddedDatabase } from '../src/dev-database.js';
import type { DevDatabase } from '../src/dev-database.js';

describe('the embedded database port', () => {
  const dirs: string[] = [];
  const started: DevDatabase[] = [];
  const start = async (port: number, warnings: unknown[] = []): Promise<DevDatabase> => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-pglite-port-'));
    dirs.push(dir);
    const database = await startEmbeddedDatabase(join(dir, 'data'), { port, logger: { warn: (fields: unknown) => void warnings.push(fields) } });
    started.push(database);
    return database;
  };

  afterAll(async () => {
    for (const database of started) await database.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('serves on the preferred port, and again after a restart; on a free one when it is taken', async () => {
    const port = await freePort();
    const first = await start(port);
    expect(first.connection.port).toBe(port);
    expect(first.description).toContain(`127.0.0.1:${port}`);

    const warnings: unknown[] = [];
    const second = await start(port, warnings);
    expect(second.connection.port).not.toBe(port);
    expect(second.connection.port).toBeGreaterThan(0);
    expect(warnings).toEqual([{ port }]);

    await first.stop();
    const again = await start(port);
    expect(again.connection.port).toBe(port);
  }, 120_000);
});
