/**
 * A Prometheus counter derived from a running number the backend reports on each scrape (e.g. the position of
 * its ingest-error sequence). A counter must never go down, but the backend's number can: pruning or a rebuild
 * of the normalized rows may delete and renumber what it counts. Increases are added as they are seen; a
 * decrease is taken as a new baseline (nothing is added, nothing is subtracted). What happened between the
 * last read before the drop and the first read after it is not counted: the counter undercounts across a reset,
 * it never invents errors. The first read starts the counter at the backend's number, so replicas and
 * restarted processes report the same value for the same store.
 */
export class MonotonicTotal {
  private total = 0;
  private last: number | null = null;

  /** Feeds one read; returns the counter's value. */
  observe(value: number): number {
    if (!Number.isFinite(value) || value < 0) return this.total;
    if (this.last === null) this.total = value;
    else if (value > this.last) this.total += value - this.last;
    this.last = value;
    return this.total;
  }

  get value(): number {
    return this.total;
  }
}
