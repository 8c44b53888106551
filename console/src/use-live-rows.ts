// The runs list's live updates. One subscription per set of list conditions (statuses, sort and page aside): a pushed
// run shown on the page replaces its row in place (so a run that finishes shows its new status even under a status
// filter it no longer matches); a matching run not on the page that started after the page was loaded is counted
// as new, for the "N new runs — show" button: inserting it would move the rows under the reader's eyes.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ROWS_SUBSCRIPTION } from './api.ts';
import type { RunRow, RunsPage } from './api.ts';
import { baseFilter } from './filters.ts';
import { useLive } from './live-status.ts';
import type { ListView } from './view-state.ts';

export interface LoadedPage {
  readonly page: RunsPage;
  /** When the request of this page was sent (epoch ms): runs started later are new. */
  readonly started: number;
}

interface Pushed {
  readonly loaded: LoadedPage | null;
  readonly rows: ReadonlyMap<string, RunRow>;
  readonly fresh: ReadonlySet<string>;
}

export interface LiveRows {
  readonly rows: readonly RunRow[] | null;
  /** Matching runs started since the page was loaded and not on it. */
  readonly fresh: number;
}

export function useLiveRows(list: ListView, loaded: LoadedPage | null): LiveRows {
  const [pushed, setPushed] = useState<Pushed>({ loaded, rows: new Map(), fresh: new Set() });
  const current = useRef(loaded);
  current.current = loaded;
  useEffect(() => setPushed({ loaded, rows: new Map(), fresh: new Set() }), [loaded]);
  const { name, namespace, version, match, text, payload, range, from, to } = list;
  const key = JSON.stringify([name, namespace, version, match, text, payload, range, from, to]);
  useLive<{ workflowInstanceChanged: RunRow }>(`rows:${key}`, ROWS_SUBSCRIPTION, { filter: baseFilter(list, Date.now()) }, (data) => {
    const row = data.workflowInstanceChanged;
    const page = current.current;
    if (page === null) return;
    if (page.page.rows.some((r) => r.id === row.id)) {
      setPushed((p) => (p.loaded === page ? { ...p, rows: new Map(p.rows).set(row.id, row) } : p));
    } else if (isNew(row, page, list)) {
      setPushed((p) => (p.loaded === page ? { ...p, fresh: new Set(p.fresh).add(row.id) } : p));
    }
  });
  if (loaded === null) return { rows: null, fresh: 0 };
  const same = pushed.loaded === loaded;
  return { rows: loaded.page.rows.map((r) => (same ? pushed.rows.get(r.id) : undefined) ?? r), fresh: same ? pushed.fresh.size : 0 };
}

function isNew(row: RunRow, page: LoadedPage, list: ListView): boolean {
  if (list.statuses.length > 0 && !list.statuses.includes(row.status)) return false;
  return row.startDate !== null && Date.parse(row.startDate) > page.started;
}
