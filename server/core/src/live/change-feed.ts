// The backend-neutral source of live updates (docs/live-updates.md): each backend's write path tells the server which
// runs changed, and the server (live-hub.ts) reads them again for every subscriber through its own scoped Reader. A
// feed never carries row data, only ids: what a subscriber may see is decided by the read, never by the feed.

/**
 * What a feed delivers:
 *  - `changed`: these runs were created or changed (status, lastUpdate, a task execution added or changed) and the
 *    change is already served by queries. An id may repeat, or name a run that did not really change: a read tells.
 *  - `resync`: changes may have been missed (the feed was cut off, or a batch was too large to name): every
 *    subscriber is sent its current state again, as on subscribe.
 */
export type ChangeBatch = { readonly kind: 'changed'; readonly ids: readonly string[] } | { readonly kind: 'resync' };

export type ChangeListener = (batch: ChangeBatch) => void;

export interface ChangeFeed {
  /**
   * Starts delivering to `listener` (the app's one hub); resolves once changes committed from now on will be
   * delivered. Called when the first subscriber arrives; a feed that cannot start yet keeps trying by itself and
   * delivers `resync` once it has.
   */
  start(listener: ChangeListener): Promise<void>;
  /** Stops delivering and releases what the feed holds (its connection, its timer). Called when the last subscriber leaves. */
  stop(): Promise<void>;
}
