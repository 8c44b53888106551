// Which PostgreSQL failures are "the database is unavailable" (SERVICE_UNAVAILABLE, clients retry) and which are the
// request's own: a protocol violation (08P01) belongs to the statement that caused it — e.g. more than 65,535 bind
// parameters, which the driver cannot encode — and must never make a client's request look like an outage.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { BackendUnavailableError } from '@workflow-index/core';
import { classifyError, isUnavailable } from '../src/postgresql-errors.js';
import { ADMIN_URL, postgresReachable } from './support/test-database.js';

const reachable = await postgresReachable();

const sqlError = (code: string): Error => Object.assign(new Error(`error ${code}`), { code });

describe('postgresql-errors', () => {
  it('connection exceptions, resources, operator intervention and login refusals are unavailable', () => {
    for (const code of ['08000', '08003', '08006', '08001', '08004', '53300', '57P01', '57014', '28P01', '3D000', 'ECONNREFUSED']) {
      expect(isUnavailable(sqlError(code)), code).toBe(true);
    }
    expect(classifyError(sqlError('08006'), 'test')).toBeInstanceOf(BackendUnavailableError);
  });

  it('08P01 (protocol violation) is the request\'s error, not an outage; neither are syntax or data errors', () => {
    for (const code of ['08P01', '42601', '22008', '22P02']) expect(isUnavailable(sqlError(code)), code).toBe(false);
    const error = sqlError('08P01');
    expect(classifyError(error, 'test')).toBe(error);
  });

  it.skipIf(!reachable)('a statement with more than 65,535 parameters fails with 08P01, classified as not unavailable', async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      const values = Array.from({ length: 70_000 }, (_, i) => `x${i}`);
      const sql = `SELECT 1 WHERE 'a' IN (${values.map((_, i) => `$${i + 1}`).join(',')})`;
      const error = await client.query(sql, values).then(
        () => null,
        (e: unknown) => e,
      );
      expect((error as { code?: string } | null)?.code).toBe('08P01');
      expect(isUnavailable(error)).toBe(false);
    } finally {
      await client.end().catch(() => undefined);
    }
  });
});
