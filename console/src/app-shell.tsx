// Header (title, links, freshness, auto-refresh) around the runs list or a run page, chosen by the URL.
import { getFreshness } from './api.ts';
import { formatAgo } from './format.ts';
import { InsightsPage } from './insights-page.tsx';
import { LiveIndicator } from './live-indicator.tsx';
import { useLiveState } from './live-status.ts';
import { hrefOf, navigate, onLinkClick, useView } from './navigation.ts';
import { RunPage } from './run-page.tsx';
import { RunsList } from './runs-list.tsx';
import { SessionBadge } from './session-badge.tsx';
import { TimeText } from './time-text.tsx';
import { TimeZoneSelect } from './time-zone-select.tsx';
import { useNow, useQuery, useTicker } from './use-query.ts';
import { REFRESH_SECONDS } from './view-state.ts';
import type { ViewState } from './view-state.ts';

export function AppShell() {
  const view = useView();
  // While the page's live stream is up, pushes replace polling: the ticker stops.
  const live = useLiveState();
  const tick = useTicker(live === 'live' ? 0 : view.refresh);
  const home: ViewState = { ...view, run: null, task: null, tab: null, screen: 'runs' };
  const insights: ViewState = { ...view, run: null, task: null, tab: null, screen: 'insights' };
  const onInsights = view.run === null && view.screen === 'insights';
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={hrefOf(home)} onClick={onLinkClick(home)}>
          Workflow Index
        </a>
        <nav aria-label="Console">
          <a href={hrefOf(home)} onClick={onLinkClick(home)} aria-current={view.run === null && !onInsights ? 'page' : undefined}>
            Runs
          </a>
          <a href={hrefOf(insights)} onClick={onLinkClick(insights)} aria-current={onInsights ? 'page' : undefined}>
            Insights
          </a>
        </nav>
        <nav aria-label="Elsewhere">
          <a href="/q/graphql-ui">GraphQL UI</a>
          <a href="/docs">Docs</a>
        </nav>
        <Freshness tick={tick} />
        <label class="refresh">
          Auto-refresh{' '}
          <select value={String(view.refresh)} onChange={(e) => navigate({ ...view, refresh: Number((e.target as HTMLSelectElement).value) }, { replace: true })}>
            {REFRESH_SECONDS.map((s) => (
              <option value={String(s)}>{s === 0 ? 'off' : `${s} s`}</option>
            ))}
          </select>
        </label>
        {!onInsights && <LiveIndicator refresh={view.refresh} />}
        <TimeZoneSelect />
        <SessionBadge />
      </header>
      <main id="main" tabIndex={-1}>
        {view.run !== null ? <RunPage view={view} run={view.run} tick={tick} /> : onInsights ? <InsightsPage view={view} tick={tick} /> : <RunsList view={view} tick={tick} />}
      </main>
    </>
  );
}

function Freshness({ tick }: { tick: number }) {
  const result = useQuery('freshness', tick, (signal) => getFreshness(signal));
  const now = useNow(true, 5000);
  if (result.data === null) return <p class="freshness" data-testid="freshness">{result.state === 'error' ? 'Freshness unknown' : 'Checking freshness…'}</p>;
  const { newestEventTime, lagSeconds } = result.data;
  if (newestEventTime === null) return <p class="freshness" data-testid="freshness">No events indexed yet</p>;
  const lag = lagSeconds ?? Math.max(0, (now - Date.parse(newestEventTime)) / 1000);
  return (
    <p class="freshness" data-testid="freshness" title="Newest event in the index and how long ago it happened (the ingestion lag when workflows are busy)">
      Newest event <TimeText iso={newestEventTime} withZone /> · lag {formatAgo(lag).replace(' ago', '')}
    </p>
  );
}
