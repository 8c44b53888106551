// The runs of an export, one page at a time, in the list's default order (startDate DESC, id ASC): each page continues
// after the last row of the one before by its keyset position, so pages neither skip nor repeat a run however deep the
// export goes, and reading page n+1 costs what reading page 1 does (no offset). Only the page being read is held.
import { DEFAULT_LIST_ORDER, effectiveSortKeys } from '../reader.js';
import type { InstanceFilter, KeysetPosition, Reader, WorkflowInstanceRecord } from '../reader.js';

const ORDER = effectiveSortKeys<string>([], DEFAULT_LIST_ORDER);

export class RunPages {
  private after: KeysetPosition | null = null;
  private ended = false;

  constructor(
    private readonly reader: Reader,
    private readonly filter: InstanceFilter | null,
    readonly pageSize: number,
  ) {}

  /** No page left to read: the last one was shorter than a page (or none was). */
  get done(): boolean {
    return this.ended;
  }

  /** The next page ([] once done); a page shorter than pageSize is the last. */
  async next(): Promise<WorkflowInstanceRecord[]> {
    if (this.ended) return [];
    const rows = await this.reader.listInstances({ filter: this.filter, orderBy: [], after: this.after, limit: this.pageSize, offset: 0, payloads: true });
    const last = rows.at(-1);
    if (rows.length < this.pageSize || last === undefined) this.ended = true;
    else this.after = positionOf(last);
    return rows;
  }
}

function positionOf(row: WorkflowInstanceRecord): KeysetPosition {
  return { values: ORDER.map((key) => (row as unknown as Readonly<Record<string, string | null>>)[key.field] ?? null) };
}
