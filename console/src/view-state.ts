// The whole view lives in the URL's query string, so a view can be shared and the back button works. This module
// is pure (no DOM): parse a query string into a ViewState and write one back, with defaults left out.

export const STATUSES = ['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'] as const;
export type Status = (typeof STATUSES)[number];

export const SORT_KEYS = ['name', 'namespace', 'version', 'status', 'startDate', 'endDate', 'lastUpdate', 'duration'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type Direction = 'ASC' | 'DESC';

export const RANGES = ['all', '1h', '1d', '7d', 'custom'] as const;
export type Range = (typeof RANGES)[number];

/** How the name, namespace and version fields match: the whole text, its beginning, or anywhere in it. */
export const MATCHES = ['prefix', 'contains', 'exact'] as const;
export type Match = (typeof MATCHES)[number];

export const RUN_TABS = ['events'] as const;
export type RunTab = (typeof RUN_TABS)[number];

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const REFRESH_SECONDS = [0, 5, 15, 60] as const;

export interface ListView {
  readonly statuses: readonly Status[];
  readonly name: string;
  readonly namespace: string;
  readonly version: string;
  readonly match: Match;
  /** Free text matched against the instance id (contains). */
  readonly text: string;
  /** `key=value` on the input payload (dot path key). */
  readonly payload: string;
  readonly range: Range;
  /** ISO instants, used when range is custom. */
  readonly from: string;
  readonly to: string;
  readonly sort: SortKey;
  readonly direction: Direction;
  /** 1-based page number. */
  readonly page: number;
  readonly size: number;
  /** Runs whose error has exactly this type / title (a drill-down from the insights page's top errors). */
  readonly errorType: string;
  readonly errorTitle: string;
  /** Runs with a FAULTED task execution at this position (a drill-down from the top failing tasks). */
  readonly failedTask: string;
}

/** The screens that are not a run page. */
export const SCREENS = ['runs', 'insights'] as const;
export type Screen = (typeof SCREENS)[number];

/** The insights page's time range (the interval follows from it: insights-range.ts). */
export const SPANS = ['1h', '1d', '7d'] as const;
export type Span = (typeof SPANS)[number];

export interface ViewState {
  readonly list: ListView;
  /** The run page of this instance id, or null for the runs list. */
  readonly run: string | null;
  /** The selected task execution id on the run page. */
  readonly task: string | null;
  /** The run page's tab: null for the overview, 'events' for the event history. */
  readonly tab: RunTab | null;
  /** Auto-refresh period in seconds; 0 = off. */
  readonly refresh: number;
  /** The runs list or the insights page, when no run is shown. */
  readonly screen: Screen;
  readonly span: Span;
}

export const DEFAULT_LIST: ListView = {
  statuses: [],
  name: '',
  namespace: '',
  version: '',
  match: 'prefix',
  text: '',
  payload: '',
  range: 'all',
  from: '',
  to: '',
  sort: 'startDate',
  direction: 'DESC',
  page: 1,
  size: 25,
  errorType: '',
  errorTitle: '',
  failedTask: '',
};

export const DEFAULT_VIEW: ViewState = { list: DEFAULT_LIST, run: null, task: null, tab: null, refresh: 0, screen: 'runs', span: '1d' };

function oneOf<T extends string | number>(allowed: readonly T[], value: T | undefined, fallback: T): T {
  return value !== undefined && allowed.includes(value) ? value : fallback;
}

function positiveInt(value: string | null, fallback: number): number {
  if (value === null || !/^\d{1,9}$/.test(value)) return fallback;
  const n = Number(value);
  return n >= 1 ? n : fallback;
}

/** Unknown or malformed parameters fall back to their defaults: a hand-edited URL never breaks the page. */
export function parseView(search: string): ViewState {
  const p = new URLSearchParams(search);
  const statuses = (p.get('status') ?? '')
    .split(',')
    .filter((s): s is Status => (STATUSES as readonly string[]).includes(s));
  const [sortKey, sortDir] = (p.get('sort') ?? '').split('.');
  const list: ListView = {
    statuses: STATUSES.filter((s) => statuses.includes(s)),
    name: p.get('name') ?? '',
    namespace: p.get('namespace') ?? '',
    version: p.get('version') ?? '',
    match: oneOf(MATCHES, (p.get('match') ?? undefined) as Match | undefined, DEFAULT_LIST.match),
    text: p.get('q') ?? '',
    payload: p.get('payload') ?? '',
    range: oneOf(RANGES, (p.get('range') ?? undefined) as Range | undefined, 'all'),
    from: p.get('from') ?? '',
    to: p.get('to') ?? '',
    sort: oneOf(SORT_KEYS, sortKey as SortKey | undefined, DEFAULT_LIST.sort),
    direction: sortKey === undefined || sortKey === '' ? DEFAULT_LIST.direction : sortDir === 'asc' ? 'ASC' : 'DESC',
    page: positiveInt(p.get('page'), 1),
    size: oneOf(PAGE_SIZES as readonly number[], Number(p.get('size') ?? DEFAULT_LIST.size), DEFAULT_LIST.size),
    errorType: p.get('errorType') ?? '',
    errorTitle: p.get('errorTitle') ?? '',
    failedTask: p.get('failedTask') ?? '',
  };
  const refresh = oneOf(REFRESH_SECONDS as readonly number[], Number(p.get('refresh') ?? 0), 0);
  const run = p.get('run') || null;
  // A task is selected, and a tab shown, on a run page only.
  const tab = run === null ? null : oneOf<RunTab | ''>(RUN_TABS, (p.get('tab') ?? undefined) as RunTab | undefined, '') || null;
  const screen = run === null ? oneOf(SCREENS, (p.get('view') ?? undefined) as Screen | undefined, 'runs') : 'runs';
  const span = screen === 'insights' ? oneOf(SPANS, (p.get('span') ?? undefined) as Span | undefined, DEFAULT_VIEW.span) : DEFAULT_VIEW.span;
  return { list, run, task: run === null ? null : p.get('task') || null, tab, refresh, screen, span };
}

/** The query string of a view (with a leading `?`, or '' for the default view); defaults are left out. */
export function formatView(view: ViewState): string {
  const p = new URLSearchParams();
  const l = view.list;
  if (view.run !== null) p.set('run', view.run);
  if (view.run !== null && view.task !== null) p.set('task', view.task);
  if (view.run !== null && view.tab !== null) p.set('tab', view.tab);
  if (view.run === null && view.screen !== 'runs') p.set('view', view.screen);
  if (view.run === null && view.screen === 'insights' && view.span !== DEFAULT_VIEW.span) p.set('span', view.span);
  if (l.statuses.length > 0) p.set('status', l.statuses.join(','));
  if (l.name !== '') p.set('name', l.name);
  if (l.namespace !== '') p.set('namespace', l.namespace);
  if (l.version !== '') p.set('version', l.version);
  if (l.match !== DEFAULT_LIST.match) p.set('match', l.match);
  if (l.text !== '') p.set('q', l.text);
  if (l.payload !== '') p.set('payload', l.payload);
  if (l.range !== 'all') p.set('range', l.range);
  if (l.range === 'custom' && l.from !== '') p.set('from', l.from);
  if (l.range === 'custom' && l.to !== '') p.set('to', l.to);
  if (l.sort !== DEFAULT_LIST.sort || l.direction !== DEFAULT_LIST.direction) p.set('sort', `${l.sort}.${l.direction.toLowerCase()}`);
  if (l.page !== 1) p.set('page', String(l.page));
  if (l.size !== DEFAULT_LIST.size) p.set('size', String(l.size));
  if (l.errorType !== '') p.set('errorType', l.errorType);
  if (l.errorTitle !== '') p.set('errorTitle', l.errorTitle);
  if (l.failedTask !== '') p.set('failedTask', l.failedTask);
  if (view.refresh !== 0) p.set('refresh', String(view.refresh));
  const text = p.toString();
  return text === '' ? '' : `?${text}`;
}
