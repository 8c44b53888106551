// The container runtime cuts a printed line longer than its buffer (16 KiB) into parts: CRI marks every part but
// the last `P` and the last `F`; docker's json-file leaves the "\n" off every part but the last. The runtime never
// writes another line of the same stream between the parts of one, so a stream's parts, in the order read, are
// the line. Parts are held per key (one stream of one log) until the part that ends the line.
//
// What to do with a line whose last part never comes is the reader's choice, not the joiner's: `init-job ingest`
// handles it as it is at the end of the file, Fluent Bit's multiline engine emits it at its flush tick, and our
// join-partial-lines.lua holds it for as long as Fluent Bit runs.

/** The parts of split lines, held per key until the part that ends each line. */
export class PartialLineJoiner<Part> {
  // A Map keeps insertion order: unfinished lines come out in the order their first parts were read.
  readonly #held = new Map<string, Part[]>();

  /**
   * Adds a part read under `key`. Returns the parts of the whole line, in order, when `last` (a last part with
   * nothing held is a line of one part); undefined while the line goes on.
   */
  add(key: string, part: Part, last: boolean): Part[] | undefined {
    const held = this.#held.get(key);
    if (!last) {
      if (held) held.push(part);
      else this.#held.set(key, [part]);
      return undefined;
    }
    if (!held) return [part];
    this.#held.delete(key);
    held.push(part);
    return held;
  }

  /** The parts held under `key` (empty when none). */
  held(key: string): readonly Part[] {
    return this.#held.get(key) ?? [];
  }

  /** Removes and returns the parts held under `key` (empty when none). */
  take(key: string): Part[] {
    const held = this.#held.get(key) ?? [];
    this.#held.delete(key);
    return held;
  }

  /** Removes and returns every unfinished line, in the order their first parts were read. */
  drain(): Part[][] {
    const lines = [...this.#held.values()];
    this.#held.clear();
    return lines;
  }
}
