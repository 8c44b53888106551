// The insights page: for the last hour, day or week, runs started per interval by status, duration percentiles per
// workflow, the most frequent errors and the tasks that fault most. Everything links to the runs behind it.
import { getInsights } from './api.ts';
import type { DurationRow } from './api.ts';
import { durationView, errorView, failingTaskView, lastInstant, statusBucketView } from './insights-links.ts';
import { fillBuckets, insightsRange } from './insights-range.ts';
import { DurationChart } from './duration-chart.tsx';
import { DurationTable, ErrorsTable, FailingTasksTable, finishedRows } from './insights-tables.tsx';
import { navigate } from './navigation.ts';
import { StatusChart } from './status-chart.tsx';
import { useTimeZone } from './time-zone.ts';
import { useQuery } from './use-query.ts';
import { SPANS } from './view-state.ts';
import type { Span, ViewState } from './view-state.ts';

const SPAN_LABELS: Record<Span, string> = { '1h': 'Last hour (per minute)', '1d': 'Last day (per hour)', '7d': 'Last week (per hour)' };

export function InsightsPage({ view, tick }: { view: ViewState; tick: number }) {
  const zone = useTimeZone();
  const result = useQuery(`insights:${view.span}`, tick, async (signal) => {
    const range = insightsRange(view.span, Date.now());
    return { range, data: await getInsights({ ...range, last: lastInstant(range) }, signal) };
  });
  const loaded = result.data;
  const durationTarget = (row: DurationRow): ViewState =>
    loaded === null ? view : durationView(view, row.name ?? '', Date.parse(row.start), loaded.range.durations, loaded.range);
  return (
    <section aria-labelledby="insights-title" class="insights">
      <div class="insights-head">
        <h1 id="insights-title">Insights</h1>
        <label class="field">
          <span>Range</span>
          <select name="span" value={view.span} onChange={(e) => navigate({ ...view, span: (e.target as HTMLSelectElement).value as Span })}>
            {SPANS.map((s) => (
              <option value={s}>{SPAN_LABELS[s]}</option>
            ))}
          </select>
        </label>
      </div>
      {result.state === 'error' && (
        <p class="error-banner" role="alert">
          Could not load the insights: {result.message}
        </p>
      )}
      {loaded !== null && (
        <div aria-busy={result.state === 'loading'}>
          <h2>Runs started, by status</h2>
          <StatusChart
            buckets={fillBuckets(loaded.data.overTime, loaded.range.from, loaded.range.to, loaded.range.interval)}
            from={loaded.range.from}
            to={loaded.range.to}
            interval={loaded.range.interval}
            zone={zone}
            target={(status, start) => statusBucketView(view, status, start, loaded.range)}
          />
          <h2>Duration percentiles per workflow</h2>
          {finishedRows(loaded.data.durations).length > 0 && (
            <DurationChart rows={finishedRows(loaded.data.durations)} daily={loaded.range.durations === 'DAY'} target={durationTarget} />
          )}
          <DurationTable rows={loaded.data.durations} daily={loaded.range.durations === 'DAY'} target={durationTarget} />
          <div class="insights-pair">
            <section>
              <h2>Top errors</h2>
              <ErrorsTable errors={loaded.data.errors} target={(e) => errorView(view, e, loaded.range)} />
            </section>
            <section>
              <h2>Top failing tasks</h2>
              <FailingTasksTable tasks={loaded.data.tasks} target={(t) => failingTaskView(view, t, loaded.range)} />
            </section>
          </div>
        </div>
      )}
    </section>
  );
}
