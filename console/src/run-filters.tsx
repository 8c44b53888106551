// The runs list's filter form. Name, namespace and version match by prefix, anywhere or exactly (the API's literal
// startsWith / contains / eq), with suggestions from the newest runs; text fields are drafts until submitted (Enter or
// Apply), so typing does not flood history.
import { useState } from 'preact/hooks';
import { getSuggestions } from './api.ts';
import type { Suggestions } from './api.ts';
import { parsePayloadPair, toInstant } from './filters.ts';
import { navigate } from './navigation.ts';
import { useTimeZone } from './time-zone.ts';
import { useQuery } from './use-query.ts';
import { DEFAULT_LIST, MATCHES, PAGE_SIZES, RANGES, SORT_KEYS } from './view-state.ts';
import type { ListView, Match, Range, SortKey, ViewState } from './view-state.ts';

const RANGE_LABELS: Record<Range, string> = { all: 'Any time', '1h': 'Last hour', '1d': 'Last day', '7d': 'Last week', custom: 'Custom…' };
const MATCH_LABELS: Record<Match, string> = { prefix: 'starts with', contains: 'contains', exact: 'is exactly' };
const SORT_LABELS: Record<SortKey, string> = {
  name: 'Workflow',
  namespace: 'Namespace',
  version: 'Version',
  status: 'Status',
  startDate: 'Start',
  endDate: 'End',
  lastUpdate: 'Last update',
  duration: 'Duration',
};

export function setList(view: ViewState, change: Partial<ListView>, options: { keepPage?: boolean } = {}): void {
  navigate({ ...view, list: { ...view.list, ...(options.keepPage === true ? {} : { page: 1 }), ...change } });
}

type Draft = Pick<ListView, 'name' | 'namespace' | 'version' | 'text' | 'payload' | 'from' | 'to'>;

const draftOf = (list: ListView): Draft => ({ name: list.name, namespace: list.namespace, version: list.version, text: list.text, payload: list.payload, from: list.from, to: list.to });

export function Filters({ view }: { view: ViewState }) {
  const list = view.list;
  const zone = useTimeZone();
  // Loaded once per page load (no refresh ticks): suggestions need not be fresh to the second.
  const suggestions = useQuery('suggestions', 0, (signal) => getSuggestions(signal)).data;
  const [draft, setDraft] = useState(() => draftOf(list));
  const [shownFor, setShownFor] = useState(list);
  if (shownFor !== list) {
    setShownFor(list);
    setDraft(draftOf(list));
  }
  // Folded on narrow screens only (styles.css); wide screens always show the form.
  const [open, setOpen] = useState(false);
  const payloadInvalid = draft.payload.trim() !== '' && parsePayloadPair(draft.payload) === null;
  const field = (key: keyof Draft, label: string, placeholder: string, extra: Record<string, unknown> = {}) => (
    <label class="field">
      <span>{label}</span>
      <input name={key} value={draft[key]} placeholder={placeholder} onInput={(e) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })} {...extra} />
    </label>
  );
  const how = MATCH_LABELS[list.match];
  return (
    <>
      <FoldButton list={list} open={open} onToggle={() => setOpen(!open)} />
      <form
        id="run-filters"
        class={`filters${open ? '' : ' folded'}`}
        role="search"
        aria-label="Filter runs"
        onSubmit={(e) => {
          e.preventDefault();
          if (payloadInvalid) return;
          setList(view, { ...draft, from: toInstant(draft.from, zone), to: toInstant(draft.to, zone) });
        }}
      >
        {field('text', 'Id contains', 'e.g. 01KRDQ')}
        <label class="field">
          <span>Name, namespace, version</span>
          <select name="match" value={list.match} onChange={(e) => setList(view, { ...draft, match: (e.target as HTMLSelectElement).value as Match })}>
            {MATCHES.map((m) => (
              <option value={m}>{MATCH_LABELS[m]}</option>
            ))}
          </select>
        </label>
        {field('name', 'Workflow', `name ${how}…`, suggested('suggest-names'))}
        {field('namespace', 'Namespace', `namespace ${how}…`, suggested('suggest-namespaces'))}
        {field('version', 'Version', `version ${how}…`, suggested('suggest-versions'))}
        <SuggestionLists suggestions={suggestions} />
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
            {field('from', `From (ISO, ${zone === 'utc' ? 'UTC' : 'local'})`, '2026-05-12T09:00:00')}
            {field('to', `To (ISO, ${zone === 'utc' ? 'UTC' : 'local'})`, '2026-05-12T10:00:00')}
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
        <SortSelect view={view} />
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
    </>
  );
}

/** On a phone the form folds away behind this button, so the runs come first; it says how many filters apply. */
function FoldButton({ list, open, onToggle }: { list: ListView; open: boolean; onToggle: () => void }) {
  const active = [list.name, list.namespace, list.version, list.text, list.payload].filter((v) => v !== '').length + (list.range === 'all' ? 0 : 1);
  return (
    <button type="button" class="secondary filters-toggle narrow-only" aria-expanded={open} aria-controls="run-filters" onClick={onToggle}>
      {open ? 'Hide filters' : 'Filters'}
      {active > 0 ? ` (${active} active)` : ''}
    </button>
  );
}

const suggested = (list: string): Record<string, unknown> => ({ list, autocomplete: 'off' });

function SuggestionLists({ suggestions }: { suggestions: Suggestions | null }) {
  const lists: [string, readonly string[]][] = [
    ['suggest-names', suggestions?.names ?? []],
    ['suggest-namespaces', suggestions?.namespaces ?? []],
    ['suggest-versions', suggestions?.versions ?? []],
  ];
  return (
    <>
      {lists.map(([id, values]) => (
        <datalist id={id}>
          {values.map((v) => (
            <option value={v} />
          ))}
        </datalist>
      ))}
    </>
  );
}

/** The sort as one select, for narrow screens where the cards have no column headers to click. */
function SortSelect({ view }: { view: ViewState }) {
  const { sort, direction } = view.list;
  return (
    <label class="field narrow-only">
      <span>Sort by</span>
      <select
        name="sort"
        value={`${sort}.${direction}`}
        onChange={(e) => {
          const [key, dir] = (e.target as HTMLSelectElement).value.split('.') as [SortKey, 'ASC' | 'DESC'];
          setList(view, { sort: key, direction: dir });
        }}
      >
        {SORT_KEYS.flatMap((k) =>
          (['DESC', 'ASC'] as const).map((d) => (
            <option value={`${k}.${d}`}>
              {SORT_LABELS[k]} {d === 'DESC' ? '↓' : '↑'}
            </option>
          )),
        )}
      </select>
    </label>
  );
}
