/**
 * Operation names come from clients, so as metric label values they must be bounded without letting the
 * first clients to arrive keep every slot for good (the rule before this one: the first 200 distinct names
 * won forever, everyone after them was `other`).
 *
 * The rule:
 * - at most `maxNames` names have their own label value at any time; anything else is `other`;
 * - while there is room, a new name gets a slot at once;
 * - when the slots are full, a new name must first be seen in `minRequests` requests within one window of
 *   `windowMs` (names generated per request never qualify, so they cannot push anything out; candidates are
 *   counted in a table of at most `maxCandidates` names, emptied at each window), and then takes the slot of the
 *   least recently used name if that one was not used for a whole window (its series are removed from the
 *   registry). A slot in use is never taken away, so a name that is queried keeps its series, and the names of
 *   the first clients give way once they stop being used: a burst of names fills the slots for one window at
 *   most;
 * - names that are not GraphQL names (`operationName` sent beside a document that does not parse) are `other`.
 */
export interface OperationNameLabelOptions {
  readonly maxNames: number;
  readonly minRequests: number;
  readonly windowMs: number;
  readonly maxCandidates: number;
  /** Milliseconds, monotonic enough for windows; tests pass their own clock. */
  readonly now: () => number;
  /** Called when a name gives up its slot: remove its series. */
  readonly onRelease: (name: string) => void;
}

export const OTHER = 'other';
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

export type OperationNameLimits = Pick<OperationNameLabelOptions, 'maxNames' | 'minRequests' | 'windowMs' | 'maxCandidates'>;

export const DEFAULT_OPERATION_NAME_LABELS: OperationNameLimits = { maxNames: 200, minRequests: 3, windowMs: 10 * 60_000, maxCandidates: 2000 };

export class OperationNameLabels {
  /** name → last use; Map order is least recently used first (a use moves the name to the end). */
  private readonly slots = new Map<string, number>();
  private candidates = new Map<string, number>();
  private windowStart: number;

  constructor(private readonly options: OperationNameLabelOptions) {
    this.windowStart = options.now();
  }

  /** The label value for one request of this operation name. */
  of(name: string): string {
    if (!GRAPHQL_NAME.test(name) || name === OTHER) return OTHER;
    const now = this.options.now();
    if (now - this.windowStart >= this.options.windowMs) {
      this.windowStart = now;
      this.candidates = new Map();
    }
    if (this.slots.has(name)) {
      this.slots.delete(name);
      this.slots.set(name, now);
      return name;
    }
    if (this.slots.size < this.options.maxNames) {
      this.slots.set(name, now);
      return name;
    }
    const seen = this.candidates.get(name);
    if (seen === undefined) {
      if (this.candidates.size >= this.options.maxCandidates) return OTHER;
      this.candidates.set(name, 1);
      if (this.options.minRequests > 1) return OTHER;
    } else {
      this.candidates.set(name, seen + 1);
      if (seen + 1 < this.options.minRequests) return OTHER;
    }
    if (!this.releaseIdle(now)) return OTHER;
    this.candidates.delete(name);
    this.slots.set(name, now);
    return name;
  }

  /** Names that have their own label value now, least recently used first. */
  names(): string[] {
    return [...this.slots.keys()];
  }

  private releaseIdle(now: number): boolean {
    const oldest = this.slots.entries().next();
    if (oldest.done === true) return false;
    const [name, lastUse] = oldest.value;
    if (now - lastUse < this.options.windowMs) return false;
    this.slots.delete(name);
    this.options.onRelease(name);
    return true;
  }
}
