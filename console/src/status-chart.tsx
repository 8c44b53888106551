// Runs started per interval, stacked by status: uPlot draws the bars, axes and grid on a canvas; a layer of links over
// it keeps every segment a drill-down to the runs of that status and interval, one Tab stop each, named by its window,
// count and status. The legend gives each status's total over the range.
import { useRef } from 'preact/hooks';
import { ChartLinks } from './chart-links.tsx';
import { useColorScheme } from './chart-theme.ts';
import { formatTime } from './format.ts';
import type { TimeZone } from './format.ts';
import type { Interval, StatusBucket } from './insights-range.ts';
import { INTERVAL_MS } from './insights-range.ts';
import { statusPlot } from './status-chart-plot.ts';
import { usePlot } from './use-plot.tsx';
import { STATUSES } from './view-state.ts';
import type { Status, ViewState } from './view-state.ts';

const HEIGHT = 200;

interface ChartProps {
  readonly buckets: readonly StatusBucket[];
  /** The range asked for (data attributes: what a test or a script reads back). */
  readonly from: string;
  readonly to: string;
  readonly interval: Interval;
  readonly zone: TimeZone;
  readonly target: (status: Status, start: number) => ViewState;
}

/** `2026-05-12 09:14` in the zone shown. */
function minute(ms: number, zone: TimeZone): string {
  return formatTime(new Date(ms).toISOString(), false, zone).slice(0, 16);
}

/** `2026-05-12 09:00–10:00: 3 faulted`. */
function segmentName(start: number, interval: Interval, zone: TimeZone, count: number, status: Status): string {
  return `${minute(start, zone)}–${minute(start + INTERVAL_MS[interval], zone).slice(11)}: ${count} ${status.toLowerCase()}`;
}

export function StatusChart({ buckets, from, to, interval, zone, target }: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const scheme = useColorScheme();
  const key = JSON.stringify([from, to, interval, zone, scheme, buckets.map((b) => STATUSES.map((s) => b.counts[s]))]);
  usePlot(host, key, HEIGHT, (el, UPlot) => {
    const plot = statusPlot(UPlot, buckets, { from, to, interval }, zone, el);
    const links = (chart: Parameters<typeof plot.segments>[0]) =>
      plot.segments(chart).map(({ status, bucket, ...box }) => ({
        ...box,
        view: target(status, bucket.start),
        name: segmentName(bucket.start, interval, zone, bucket.counts[status], status),
        className: `segment status-${status.toLowerCase()}`,
        data: { status, start: new Date(bucket.start).toISOString() },
      }));
    return { ...plot, links: (chart) => <ChartLinks links={links(chart)} label="Runs started per interval, by status" focusable /> };
  });
  return (
    <figure class="chart" data-testid="status-chart" data-from={from} data-to={to} data-interval={interval} data-buckets={buckets.length}>
      <div class="chart-plot" ref={host} />
      <ul class="legend">
        {STATUSES.map((s) => (
          <li>
            <span class={`swatch status-${s.toLowerCase()}`} aria-hidden="true" />
            {s.toLowerCase()} <span class="muted">{buckets.reduce((sum, b) => sum + b.counts[s], 0)}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
