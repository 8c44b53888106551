// Live updates from the OpenSearch write path (docs/live-updates.md). The normalizer is another process: every cycle
// stamps the instance documents it writes with changed_at_ms (the time of its bulk; normalizer-recompute.ts), and
// this feed, while someone is subscribed, polls once for all subscribers for the runs stamped since the newest stamp
// it has seen, minus OVERLAP_MS: a bulk becomes searchable up to a refresh interval (1 s) after its stamp, and
// normalizer replicas' clocks differ a little, so a stamp may show up below one already seen. Each (run, stamp) is
// delivered when first seen and once more SETTLE_MS later: the bulk that stamped the run also wrote its task
// executions into another index, which refreshes on its own (up to a refresh interval apart), so the first read may
// find the run's new state beside its tasks' old one, and no later stamp would correct it. A poll that fails is
// simply tried again (the stamps stay, so nothing is missed unless it falls out of the window); a poll with more than
// MAX_CHANGES_PER_POLL runs delivers `resync` instead of naming them (and again SETTLE_MS later).
import type { Client } from '@opensearch-project/opensearch';
import type { ChangeFeed, ChangeListener, Logger } from '@workflow-index/core';
import { CHANGED_AT_FIELD } from './normalizer-recompute.js';

export const POLL_INTERVAL_MS = 500;
export const OVERLAP_MS = 5000;
export const MAX_CHANGES_PER_POLL = 10_000;
/** When a change is delivered again: past the default refresh interval (1 s) of the other normalized indices. */
export const SETTLE_MS = 1500;
const PAGE = 1000;

export interface OpenSearchChangeFeedOptions {
  readonly client: Client;
  /** The workflow-instances index (under the installation's prefix). */
  readonly index: string;
  readonly logger: Logger;
  readonly pollIntervalMs?: number;
}

interface Stamp {
  readonly id: string;
  readonly at: number;
}

export class OpenSearchChangeFeed implements ChangeFeed {
  private listener: ChangeListener | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The newest stamp seen, and every (run, stamp) seen within OVERLAP_MS of it. */
  private newest = 0;
  private seen = new Map<string, number>();
  /** Runs delivered once, by when to deliver them again (epoch ms); a resync to repeat, by when (0: none). */
  private settling = new Map<string, number>();
  private resyncAgainAt = 0;
  private failing = false;

  constructor(private readonly options: OpenSearchChangeFeedOptions) {}

  async start(listener: ChangeListener): Promise<void> {
    // What is there already is the state subscribers read on subscribe: seen, not delivered.
    try {
      this.remember(await this.stampsSince(null));
    } catch (error) {
      this.options.logger.warn({ reason: (error as Error).message }, 'live updates: cannot read changes yet; polling');
    }
    this.listener = listener;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.listener = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await Promise.resolve();
  }

  private schedule(): void {
    if (this.listener === null) return;
    this.timer = setTimeout(() => void this.poll(), this.options.pollIntervalMs ?? POLL_INTERVAL_MS);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    try {
      const stamps = await this.stampsSince(this.newest - OVERLAP_MS);
      const fresh = stamps.filter((s) => this.seen.get(s.id) !== s.at);
      this.remember(stamps);
      if (this.failing) this.options.logger.info('live updates: reading changes again');
      this.failing = false;
      this.deliver(fresh, Date.now());
    } catch (error) {
      if (!this.failing) this.options.logger.warn({ reason: (error as Error).message }, 'live updates: reading changes failed; retrying');
      this.failing = true;
    } finally {
      this.schedule();
    }
  }

  /** The fresh changes, and those delivered SETTLE_MS ago, once more. */
  private deliver(fresh: readonly Stamp[], nowMs: number): void {
    const again = [...this.settling].filter(([, dueMs]) => dueMs <= nowMs).map(([id]) => id);
    for (const id of again) this.settling.delete(id);
    const resyncAgain = this.resyncAgainAt !== 0 && this.resyncAgainAt <= nowMs;
    if (resyncAgain) this.resyncAgainAt = 0;
    if (fresh.length > MAX_CHANGES_PER_POLL) {
      this.resyncAgainAt = nowMs + SETTLE_MS;
      this.listener?.({ kind: 'resync' });
      return;
    }
    for (const s of fresh) this.settling.set(s.id, nowMs + SETTLE_MS);
    if (resyncAgain) this.listener?.({ kind: 'resync' });
    const ids = new Set([...fresh.map((s) => s.id), ...again]);
    if (ids.size > 0) this.listener?.({ kind: 'changed', ids: [...ids] });
  }

  private remember(stamps: readonly Stamp[]): void {
    for (const s of stamps) {
      this.seen.set(s.id, s.at);
      if (s.at > this.newest) this.newest = s.at;
    }
    const floor = this.newest - OVERLAP_MS;
    for (const [id, at] of this.seen) if (at < floor) this.seen.delete(id);
  }

  /** Served runs stamped at or after `fromMs` (null: only the newest stamp's neighbourhood), oldest first, paged. */
  private async stampsSince(fromMs: number | null): Promise<Stamp[]> {
    const from = fromMs ?? (await this.newestStamp()) - OVERLAP_MS;
    const stamps: Stamp[] = [];
    let after: unknown[] | undefined;
    while (stamps.length <= MAX_CHANGES_PER_POLL) {
      const body: Record<string, unknown> = {
        size: PAGE,
        _source: false,
        track_total_hits: false,
        query: { bool: { filter: [{ range: { [CHANGED_AT_FIELD]: { gte: from } } }], must_not: [{ term: { placeholder: true } }] } },
        docvalue_fields: ['id', CHANGED_AT_FIELD],
        sort: [{ [CHANGED_AT_FIELD]: 'asc' }, { id: 'asc' }],
      };
      if (after !== undefined) body['search_after'] = after;
      const response = await this.options.client.transport.request({ method: 'POST', path: `/${encodeURIComponent(this.options.index)}/_search`, body });
      const hits = (response.body as { hits: { hits: { sort: unknown[]; fields: Record<string, unknown[]> }[] } }).hits.hits;
      for (const hit of hits) stamps.push({ id: String(hit.fields['id']?.[0]), at: Number(hit.fields[CHANGED_AT_FIELD]?.[0]) });
      if (hits.length < PAGE) break;
      after = hits[hits.length - 1]!.sort;
    }
    return stamps;
  }

  private async newestStamp(): Promise<number> {
    const response = await this.options.client.transport.request({
      method: 'POST',
      path: `/${encodeURIComponent(this.options.index)}/_search`,
      body: { size: 0, track_total_hits: false, aggs: { newest: { max: { field: CHANGED_AT_FIELD } } } },
    });
    const value = (response.body as { aggregations?: { newest?: { value: number | null } } }).aggregations?.newest?.value;
    return value ?? 0;
  }
}
