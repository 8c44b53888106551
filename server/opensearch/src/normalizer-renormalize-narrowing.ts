// What the re-normalization walk does when a page fails (its recomputation threw; nothing of the walk moved): the
// slice ends with the failure and the failing range is retried after it in smaller pages:
// - a page of several instances: the next ones are half as large, down to one instance;
// - a single instance: skipped (recorded in the ingest errors as `normalizer/<instance id>` and walked past) only when
//   it failed RENORMALIZE_SKIP_AFTER_FAILURES times in a row for a reason of its own (renormalizationFailureKind:
//   never for the cluster being away, overloaded or recovering, nor for permissions or a missing index), when
//   recording it succeeds (the node takes writes), and when fewer than RENORMALIZE_MAX_SKIPS_IN_A_ROW instances were
//   skipped since a page last succeeded. A transient failure starts its count over, so an outage, however long,
//   skips nothing: its failures are transient, and the cycles between the slices fail meanwhile, so no slice runs.
// Kept in the process only: a restart starts with whole pages again.
import type { RenormalizationFailureKind, RulesState } from './normalizer-renormalize.js';

/** Consecutive failures of one instance alone, for a reason of its own, before the re-normalization skips it. */
export const RENORMALIZE_SKIP_AFTER_FAILURES = 3;
/** Skips in a row, with no page succeeding between, after which the walk stops skipping: so many runs failing one
 * after the other is a general failure (a mapping, a setting), not one of runs, and must not walk past every run. */
export const RENORMALIZE_MAX_SKIPS_IN_A_ROW = 5;

/** The narrowing of a failed page's range. */
export interface Narrowing {
  readonly targetVersion: number | null;
  /** The progress position it applies to (the walk's afterInstanceId). */
  after: string | null;
  /** Instances per page until the failing range is behind. */
  limit: number;
  /** Instances of the failing range not yet behind. */
  remaining: number;
  /** Consecutive failures of the single instance at this position for a reason of its own. */
  strikes: number;
}

/** What the walk does about a failed page: retry later (the message says why, the error's text follows), or skip
 * its single instance. */
export type PageFailureVerdict = { readonly retry: string } | { readonly skip: string };

export class PageNarrowing {
  private current: Narrowing | undefined;

  /** The narrowing of a failed page when it applies to the walk's position now (else it is dropped). */
  at(state: RulesState): Narrowing | undefined {
    const narrowing = this.current;
    if (narrowing === undefined) return undefined;
    if (narrowing.after === state.afterInstanceId && narrowing.targetVersion === state.targetVersion) return narrowing;
    this.current = undefined; // another position: a restart of the walk, or another normalizer moved it
    return undefined;
  }

  /** A page of `count` instances succeeded: the narrowing follows the walk, and ends once its range is behind. */
  passed(narrowing: Narrowing | undefined, count: number, after: string | null): void {
    if (narrowing === undefined || this.current !== narrowing) return;
    narrowing.remaining -= count;
    narrowing.after = after;
    narrowing.strikes = 0;
    if (narrowing.remaining <= 0) this.current = undefined;
  }

  /** The walk is done, or walked past a skipped instance: the rest goes in whole pages again. */
  clear(): void {
    this.current = undefined;
  }

  /** The page `ids` failed at the walk's position `state` for a reason of this kind. */
  failed(state: RulesState, ids: readonly string[], kind: RenormalizationFailureKind): PageFailureVerdict {
    const narrowing: Narrowing = this.at(state) ?? { targetVersion: state.targetVersion, after: state.afterInstanceId, limit: ids.length, remaining: ids.length, strikes: 0 };
    this.current = narrowing;
    narrowing.remaining = Math.max(narrowing.remaining, ids.length);
    const position = state.afterInstanceId === null ? 'from the first instance' : `after ${state.afterInstanceId}`;
    if (ids.length > 1) {
      narrowing.limit = Math.ceil(ids.length / 2);
      narrowing.strikes = 0;
      return { retry: `re-normalizing ${ids.length} instances ${position} failed; retried in pages of ${narrowing.limit}` };
    }
    narrowing.limit = 1;
    const id = ids[0]!;
    if (kind !== 'instance') {
      narrowing.strikes = 0;
      return { retry: `re-normalizing instance ${id} failed (${kind === 'transient' ? 'the cluster is away or overloaded' : 'not a failure of this run'}; retried, never skipped)` };
    }
    narrowing.strikes++;
    if (narrowing.strikes < RENORMALIZE_SKIP_AFTER_FAILURES) {
      return { retry: `re-normalizing instance ${id} failed (${narrowing.strikes} of ${RENORMALIZE_SKIP_AFTER_FAILURES} failures in a row before it is skipped)` };
    }
    if (state.skipsInARow >= RENORMALIZE_MAX_SKIPS_IN_A_ROW) {
      return { retry: `re-normalizing instance ${id} failed, not skipped: ${state.skipsInARow} instances in a row were skipped with no page succeeding between, which looks like a failure of every run (a mapping, a setting), not of some` };
    }
    return { skip: id };
  }
}
