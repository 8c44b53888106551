// The runs list: filters, per-status counts, a sortable table, paging with the total. Every control writes the
// URL (navigate), and the list is read back from it, so a view is shareable and the back button walks it.
import { useState } from 'preact/hooks';
import { listRuns } from './api.ts';
import type { Count, RunRow } from './api.ts';
import { parsePayloadPair } from './filters.ts';
import { durationOf, formatDuration, formatTime } from './format.ts';
import { hrefOf, navigate, onLinkClick } from './navigation.ts';
import { StatusBadge } from './status-badge.tsx';
import { useQuery } from './use-query.ts';
import { DEFAULT_LIST, PAGE_SIZES, RANGES, STATUSES, formatView } from './view-state.ts';
import type { ListView, Range, SortKey, Status, ViewState } from './view-state.ts';

const RANGE_LABELS: Record<Range, string> = { all: 'Any time', '1h': 'Last hour', '1d': 'Last day', '7d': 'Last week', custom: 'Custom…' };

const COLUMNS: readonly { key: SortKey; label: string }[] = [
  { key: 'status', label: 'Status' },
  { key: 'name', label: 'Workflow' },
  { key: 'namespace', label: 'Namespace' },
  { key: 'version', label: 'Version' },
  { key: 'startDate', label: 'Start (UTC)' },
  { key: 'endDate', label: 'End (UTC)' },
  { key: 'duration', label: 'Duration' },
  { key: 'lastUpdate', label: 'Last update (UTC)' },
];

function setList(view: ViewState, change: Partial<ListView>, options: { keepPage?: boolean } = {}): void {
  navigate({ ...view, list: { ...view.list, ...(options.keepPage === true ? {} : { page: 1 }), ...change } });
}

export function RunsList({ view, tick }: { view: ViewState; tick: number }) {
  const list = view.list;
  const result = useQuery(`runs${formatView({ ...view, refresh: 0 })}`, tick, (signal) => listRuns(list, Date.now(), signal));
  const page = result.data;
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Workflow runs</h1>
      <Filters view={view} />
      <StatusCounts view={view} counts={page?.counts ?? null} />
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
                <SortHeader view={view} column={c} />
              ))}
            </tr>
          </thead>
          <tbody>
            {page?.rows.map((row) => <RunLine view={view} row={row} />)}
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
    </section>
  );
}

function RunLine({ view, row }: { view: ViewState; row: RunRow }) {
  const target: ViewState = { ...view, run: row.id, task: null };
  // The server's durationMs is null while a run is running: show the time so far instead.
  const duration = row.durationMs ?? durationOf(row.startDate, row.endDate, Date.now());
  return (
    <tr data-run-id={row.id}>
      <td class="id">
        <a href={hrefOf(target)} onClick={onLinkClick(target)}>
          {row.id}
        </a>
      </td>
      <td>
        <StatusBadge status={row.status} />
      </td>
      <td>{row.name}</td>
      <td>{row.namespace ?? '—'}</td>
      <td>{row.version ?? '—'}</td>
      <td class="time">{formatTime(row.startDate)}</td>
      <td class="time">{formatTime(row.endDate)}</td>
      <td class="num">{formatDuration(duration)}{row.endDate === null && duration !== null ? ' so far' : ''}</td>
      <td class="time">{formatTime(row.lastUpdate)}</td>
    </tr>
  );
}

function SortHeader({ view, column }: { view: ViewState; column: { key: SortKey; label: string } }) {
  const list = view.list;
  const active = list.sort === column.key;
  const next = active && list.direction === 'DESC' ? 'ASC' : active ? 'DESC' : column.key.endsWith('Date') || column.key === 'lastUpdate' || column.key === 'duration' ? 'DESC' : 'ASC';
  return (
    <th scope="col" aria-sort={active ? (list.direction === 'ASC' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" class="sort" data-sort={column.key} onClick={() => setList(view, { sort: column.key, direction: next })}>
        {column.label}
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

function Filters({ view }: { view: ViewState }) {
  const list = view.list;
  // Text fields are drafts until submitted (Enter or Apply), so typing does not flood history.
  const [draft, setDraft] = useState({ name: list.name, namespace: list.namespace, version: list.version, text: list.text, payload: list.payload, from: list.from, to: list.to });
  const [shownFor, setShownFor] = useState(list);
  if (shownFor !== list) {
    setShownFor(list);
    setDraft({ name: list.name, namespace: list.namespace, version: list.version, text: list.text, payload: list.payload, from: list.from, to: list.to });
  }
  const payloadInvalid = draft.payload.trim() !== '' && parsePayloadPair(draft.payload) === null;
  const field = (key: keyof typeof draft, label: string, placeholder: string, extra: Record<string, unknown> = {}) => (
    <label class="field">
      <span>{label}</span>
      <input name={key} value={draft[key]} placeholder={placeholder} onInput={(e) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })} {...extra} />
    </label>
  );
  return (
    <form
      class="filters"
      role="search"
      aria-label="Filter runs"
      onSubmit={(e) => {
        e.preventDefault();
        if (payloadInvalid) return;
        setList(view, { ...draft, from: toInstant(draft.from), to: toInstant(draft.to) });
      }}
    >
      {field('text', 'Id contains', 'e.g. 01KRDQ')}
      {field('name', 'Workflow', 'exact name')}
      {field('namespace', 'Namespace', 'exact namespace')}
      {field('version', 'Version', 'exact version')}
      {field('payload', 'Input key=value', 'customer.name=José', payloadInvalid ? { 'aria-invalid': 'true', 'aria-describedby': 'payload-help' } : {})}
      <label class="field">
        <span>Started</span>
        <select name="range" value={list.range} onChange={(e) => setList(view, { range: (e.target as HTMLSelectElement).value as Range })}>
          {RANGES.map((r) => (
            <option value={r}>{RANGE_LABELS[r]}</option>
          ))}
        </select>
      </label>
      {list.range === 'custom' && (
        <>
          {field('from', 'From (ISO, UTC)', '2026-05-12T09:00:00Z')}
          {field('to', 'To (ISO, UTC)', '2026-05-12T10:00:00Z')}
        </>
      )}
      <label class="field">
        <span>Per page</span>
        <select name="size" value={String(list.size)} onChange={(e) => setList(view, { size: Number((e.target as HTMLSelectElement).value) })}>
          {PAGE_SIZES.map((n) => (
            <option value={String(n)}>{n}</option>
          ))}
        </select>
      </label>
      <div class="actions">
        <button type="submit">Apply</button>
        <button type="button" class="secondary" onClick={() => navigate({ ...view, list: DEFAULT_LIST })}>
          Reset
        </button>
      </div>
      {payloadInvalid && (
        <p id="payload-help" class="hint" role="alert">
          Write the input filter as key=value, e.g. customer.name=José (a dot path with no empty segment).
        </p>
      )}
    </form>
  );
}

/** Accepts a full ISO instant, or a date and time without an offset (read as UTC). */
function toInstant(text: string): string {
  const t = text.trim();
  if (t === '') return '';
  const withZone = /(Z|[+-]\d{2}:\d{2})$/.test(t) ? t : `${t}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? t : new Date(ms).toISOString();
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
