// Live updates from the PostgreSQL write path (docs/live-updates.md): the normalizing trigger sends one NOTIFY per
// flush on workflow_index_changes, naming the flush's runs (normalizer/095-live-notify.sql), and this feed holds the
// server's one dedicated LISTEN connection, outside the readers' pool. When that connection is lost (the database
// restarts, the session is terminated) it reconnects by itself, backing off up to RECONNECT_MAX_MS, and once it
// listens again it delivers `resync`: notifications sent meanwhile are lost with the session, so every subscriber is
// sent its current state instead. On a streaming replica (no NOTIFY, no LISTEN) the same connection polls
// (standby-change-poll.ts); a replica promoted meanwhile is reconnected to, and listens from then on.
import pg from 'pg';
import type { ChangeBatch, ChangeFeed, ChangeListener, Logger } from '@workflow-index/core';
import { STANDBY_POLL_MS, StandbyChangePoll } from './standby-change-poll.js';

export const CHANGES_CHANNEL = 'workflow_index_changes';
/** The LISTEN session's application_name, so operators (and tests) tell it from the readers' pool in pg_stat_activity. */
export const LISTEN_APPLICATION_NAME = 'workflow-index-live';
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 5000;

export interface PostgresqlChangeFeedOptions {
  /** The server's connection settings (the readers' pool takes the same). */
  readonly connection: pg.ClientConfig;
  readonly logger: Logger;
  /** How often a feed on a streaming replica polls (default STANDBY_POLL_MS). */
  readonly standbyPollMs?: number;
}

export class PostgresqlChangeFeed implements ChangeFeed {
  private listener: ChangeListener | null = null;
  private client: pg.Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private delayMs = RECONNECT_FIRST_MS;
  /** Notifications may have been lost since the last connection listened. */
  private missed = false;
  private reconnects = 0;

  constructor(private readonly options: PostgresqlChangeFeedOptions) {}

  /** How many times the connection was re-established (tests, logs). */
  get reconnections(): number {
    return this.reconnects;
  }

  async start(listener: ChangeListener): Promise<void> {
    this.listener = listener;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.listener = null;
    if (this.retry !== null) clearTimeout(this.retry);
    if (this.pollTimer !== null) clearTimeout(this.pollTimer);
    this.retry = null;
    this.pollTimer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...this.options.connection, application_name: LISTEN_APPLICATION_NAME, keepAlive: true });
    client.on('notification', (message) => {
      if (client === this.client) this.deliver(batchOf(message.payload));
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    let poll: StandbyChangePoll | null = null;
    try {
      await client.connect();
      const standby = (await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby')).rows[0]?.standby === true;
      if (standby) {
        poll = new StandbyChangePoll(client);
        await poll.start();
      } else {
        await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      }
    } catch (error) {
      void client.end().catch(() => undefined);
      this.options.logger.warn({ reason: (error as Error).message }, 'live updates: cannot listen for changes; retrying');
      this.missed = true;
      this.scheduleReconnect();
      return;
    }
    if (this.listener === null) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.delayMs = RECONNECT_FIRST_MS;
    if (poll !== null) this.schedulePoll(client, poll);
    if (this.missed) {
      this.missed = false;
      this.reconnects += 1;
      this.options.logger.info('live updates: listening for changes again; subscribers re-sync');
      this.deliver({ kind: 'resync' });
    }
  }

  private lost(client: pg.Client, error: Error | null): void {
    if (client !== this.client) return;
    this.client = null;
    void client.end().catch(() => undefined);
    if (this.listener === null) return;
    this.options.logger.warn({ reason: error?.message ?? 'connection ended' }, 'live updates: lost the LISTEN connection; reconnecting');
    this.missed = true;
    this.scheduleReconnect();
  }

  /** Polls the replica every standbyPollMs while this connection is the feed's; a failure is a lost connection. */
  private schedulePoll(client: pg.Client, poll: StandbyChangePoll): void {
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void poll.poll().then(
        (result) => {
          if (client !== this.client) return;
          if (result.promoted) {
            this.lost(client, new Error('the replica was promoted to a primary'));
            return;
          }
          if (result.batch !== null) this.deliver(result.batch);
          this.schedulePoll(client, poll);
        },
        (error: unknown) => this.lost(client, error as Error),
      );
    }, this.options.standbyPollMs ?? STANDBY_POLL_MS);
    this.pollTimer.unref();
  }

  private scheduleReconnect(): void {
    if (this.listener === null || this.retry !== null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, this.delayMs);
    this.retry.unref();
    this.delayMs = Math.min(this.delayMs * 2, RECONNECT_MAX_MS);
  }

  private deliver(batch: ChangeBatch): void {
    this.listener?.(batch);
  }
}

/** A JSON array of ids; anything else (a payload of a newer release, say) makes subscribers re-sync. */
export function batchOf(payload: string | undefined): ChangeBatch {
  try {
    const ids: unknown = JSON.parse(payload ?? '');
    if (Array.isArray(ids) && ids.every((id) => typeof id === 'string')) return { kind: 'changed', ids };
  } catch {
    // Not JSON: below.
  }
  return { kind: 'resync' };
}
