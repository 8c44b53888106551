// The runs list: filters, per-status counts, a sortable table, paging with the total. Every control writes the
// URL (navigate), and the list is read back from it, so a view is shareable and the back button walks it.
import { useState } from 'preact/hooks';
import { listRuns } from './api.ts';
import type { Count, RunRow } from './api.ts';
import { durationOf, formatDuration } from './format.ts';
import { hrefOf, onLinkClick } from './navigation.ts';
import { Filters, setList } from './run-filters.tsx';
import { ExportButtons } from './export-button.tsx';
import { DrillConditions } from './drill-conditions.tsx';
import { NewRuns } from './new-runs.tsx';
import { StatusBadge } from './status-badge.tsx';
import { TimeText } from './time-text.tsx';
import { useTimeZone } from './time-zone.ts';
import { useLiveRows } from './use-live-rows.ts';
import { useNow, useQuery } from './use-query.ts';
import { STATUSES, formatView } from './view-state.ts';
import type { SortKey, Status, ViewState } from './view-state.ts';

interface Column {
  readonly key: SortKey;
  readonly label: string;
  /** The label carries the zone times are shown in. */
  readonly time?: boolean;
}

const COLUMNS: readonly Column[] = [
  { key: 'status', label: 'Status' },
  { key: 'name', label: 'Workflow' },
  { key: 'namespace', label: 'Namespace' },
  { key: 'version', label: 'Version' },
  { key: 'startDate', label: 'Start', time: true },
  { key: 'endDate', label: 'End', time: true },
  { key: 'duration', label: 'Duration' },
  { key: 'lastUpdate', label: 'Last update' },
];

export function RunsList({ view, tick }: { view: ViewState; tick: number }) {
  const list = view.list;
  // "show" of the new runs' button reloads; both counters only grow, so their sum is a new tick for either.
  const [reloads, setReloads] = useState(0);
  const result = useQuery(`runs${formatView({ ...view, refresh: 0 })}`, tick + reloads, (signal) => {
    const started = Date.now();
    return listRuns(list, started, signal).then((page) => ({ page, started }));
  });
  const live = useLiveRows(list, result.data);
  const page = result.data?.page ?? null;
  // Relative times ("3 min ago") move on between loads.
  const now = useNow(true, 30_000);
  const zone = useTimeZone();
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Workflow runs</h1>
      <Filters view={view} />
      <DrillConditions view={view} />
      <StatusCounts view={view} counts={page?.counts ?? null} />
      <NewRuns count={live.fresh} onShow={() => setReloads((n) => n + 1)} />
      {result.state === 'error' && (
        <p class="error-banner" role="alert">
          Could not load runs: {result.message}
        </p>
      )}
      <div class="table-wrap" aria-busy={result.state === 'loading'}>
        <table class="runs" data-testid="runs">
          <caption class="visually-hidden">Workflow runs, sorted by {list.sort} {list.direction === 'ASC' ? 'ascending' : 'descending'}</caption>
          <thead>
            <tr>
              <th scope="col">Id</th>
              {COLUMNS.map((c) => (
                <SortHeader view={view} column={c} zone={zone === 'utc' ? 'UTC' : 'local'} />
              ))}
            </tr>
          </thead>
          <tbody>
            {live.rows?.map((row) => <RunLine view={view} row={row} now={now} />)}
            {page !== null && page.rows.length === 0 && (
              <tr>
                <td colSpan={COLUMNS.length + 1} class="empty">
                  No runs match these filters.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager view={view} total={page?.total ?? null} shown={page?.rows.length ?? 0} />
      <ExportButtons list={list} />
    </section>
  );
}

/** A table row on wide screens, a card on narrow ones (styles.css): the cells carry their labels for the card. */
function RunLine({ view, row, now }: { view: ViewState; row: RunRow; now: number }) {
  const target: ViewState = { ...view, run: row.id, task: null, tab: null };
  // The server's durationMs is null while a run is running: show the time so far instead.
  const duration = row.durationMs ?? durationOf(row.startDate, row.endDate, now);
  return (
    <tr data-run-id={row.id}>
      <td class="id c-id">
        <a href={hrefOf(target)} onClick={onLinkClick(target)}>
          {row.id}
        </a>
      </td>
      <td class="c-status">
        <StatusBadge status={row.status} />
      </td>
      <td class="c-name">{row.name}</td>
      <td class="c-namespace" data-label="Namespace">
        {row.namespace ?? '—'}
      </td>
      <td class="c-version" data-label="Version">
        {row.version ?? '—'}
      </td>
      <td class="time c-start" data-label="Started">
        <span class="wide-only">
          <TimeText iso={row.startDate} />
        </span>
        <span class="narrow-only">
          <TimeText iso={row.startDate} relative now={now} />
        </span>
      </td>
      <td class="time c-end">
        <TimeText iso={row.endDate} />
      </td>
      <td class="num c-duration" data-label="Duration">
        {formatDuration(duration)}
        {row.endDate === null && duration !== null ? ' so far' : ''}
      </td>
      <td class="time c-last">
        <TimeText iso={row.lastUpdate} relative now={now} />
      </td>
    </tr>
  );
}

function SortHeader({ view, column, zone }: { view: ViewState; column: Column; zone: string }) {
  const list = view.list;
  const active = list.sort === column.key;
  const next = active && list.direction === 'DESC' ? 'ASC' : active ? 'DESC' : column.key.endsWith('Date') || column.key === 'lastUpdate' || column.key === 'duration' ? 'DESC' : 'ASC';
  return (
    <th scope="col" aria-sort={active ? (list.direction === 'ASC' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" class="sort" data-sort={column.key} onClick={() => setList(view, { sort: column.key, direction: next })}>
        {column.label}
        {column.time === true && ` (${zone})`}
        <span aria-hidden="true" class="sort-mark">
          {active ? (list.direction === 'ASC' ? ' ▲' : ' ▼') : ''}
        </span>
      </button>
    </th>
  );
}

function StatusCounts({ view, counts }: { view: ViewState; counts: Readonly<Record<Status, Count>> | null }) {
  const selected = view.list.statuses;
  return (
    <ul class="counts" aria-label="Runs per status for these filters" data-testid="status-counts">
      {STATUSES.map((s) => {
        const on = selected.includes(s);
        const count = counts?.[s];
        return (
          <li>
            <button
              type="button"
              class={`count status-${s.toLowerCase()}`}
              aria-pressed={on}
              data-status={s}
              onClick={() => setList(view, { statuses: on ? selected.filter((x) => x !== s) : STATUSES.filter((x) => x === s || selected.includes(x)) })}
            >
              <span class="count-value">{count === undefined ? '…' : `${count.value}${count.exact ? '' : '+'}`}</span>
              <span class="count-label">{s.toLowerCase()}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function Pager({ view, total, shown }: { view: ViewState; total: Count | null; shown: number }) {
  const { page, size } = view.list;
  const first = (page - 1) * size + 1;
  const last = (page - 1) * size + shown;
  const pages = total === null ? null : Math.max(1, Math.ceil(total.value / size));
  const hasNext = total === null ? shown === size : !total.exact || page < (pages ?? 1);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => setList(view, { page: page - 1 }, { keepPage: true })}>
        ← Previous
      </button>
      <span data-testid="page-info" aria-live="polite">
        {shown === 0 ? 'No runs' : `${first}–${last}`} of {total === null ? '…' : `${total.value}${total.exact ? '' : '+'}`}
        {pages !== null && ` · page ${page} of ${pages}${total?.exact === false ? '+' : ''}`}
      </span>
      <button type="button" disabled={!hasNext} onClick={() => setList(view, { page: page + 1 }, { keepPage: true })}>
        Next →
      </button>
    </nav>
  );
}
