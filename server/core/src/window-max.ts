/**
 * Micrometer's `_max` of a timer: the largest observation of the recent past (not since start), so one slow
 * request years ago does not stay on the dashboard. Observations land in the current window; the reported
 * maximum covers the current and the previous window (between one and two window lengths); a label set with
 * nothing in either reports 0, as Micrometer's decayed max does.
 */
export class WindowMax {
  private current = new Map<string, number>();
  private previous = new Map<string, number>();
  private readonly labelSets = new Map<string, Record<string, string>>();
  private windowStart: number;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {
    this.windowStart = now();
  }

  observe(labels: Record<string, string>, value: number): void {
    this.rotate();
    const key = JSON.stringify(labels);
    this.labelSets.set(key, labels);
    this.current.set(key, Math.max(this.current.get(key) ?? 0, value));
  }

  /** Every label set ever observed with its recent maximum. */
  values(): { labels: Record<string, string>; value: number }[] {
    this.rotate();
    return [...this.labelSets].map(([key, labels]) => ({ labels, value: Math.max(this.current.get(key) ?? 0, this.previous.get(key) ?? 0) }));
  }

  /** Forgets label sets (their series leave the registry too). */
  remove(predicate: (labels: Record<string, string>) => boolean): void {
    for (const [key, labels] of this.labelSets) {
      if (!predicate(labels)) continue;
      this.labelSets.delete(key);
      this.current.delete(key);
      this.previous.delete(key);
    }
  }

  private rotate(): void {
    const elapsed = this.now() - this.windowStart;
    if (elapsed < this.windowMs) return;
    // Two windows or more without a rotation: the previous window is empty too.
    this.previous = elapsed >= 2 * this.windowMs ? new Map() : this.current;
    this.current = new Map();
    this.windowStart += Math.floor(elapsed / this.windowMs) * this.windowMs;
  }
}
