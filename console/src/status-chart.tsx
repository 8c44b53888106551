// Runs started per interval, stacked by status, as SVG bars: every segment is a link to the runs list of that status
// and interval (keyboard: Tab through the segments, Enter opens), with its count and window as its accessible name.
// Colours come from the stylesheet's status variables (light and dark); sizes are SVG attributes, no inline style.
import { formatTime } from './format.ts';
import { hrefOf, onLinkClick } from './navigation.ts';
import type { Interval, StatusBucket } from './insights-range.ts';
import { INTERVAL_MS } from './insights-range.ts';
import type { TimeZone } from './format.ts';
import { STATUSES } from './view-state.ts';
import type { Status, ViewState } from './view-state.ts';

const HEIGHT = 160;
const BAR = 10;
const GAP = 2;

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

export function StatusChart({ buckets, from, to, interval, zone, target }: ChartProps) {
  const max = Math.max(1, ...buckets.map((b) => b.total));
  const width = buckets.length * (BAR + GAP);
  const label = (start: number): string => `${minute(start, zone)}–${minute(start + INTERVAL_MS[interval], zone).slice(11)}`;
  return (
    <figure class="chart" data-testid="status-chart" data-from={from} data-to={to} data-interval={interval} data-buckets={buckets.length}>
      <div class="chart-plot">
        <span class="chart-max muted">{max}</span>
        <svg viewBox={`0 0 ${width} ${HEIGHT}`} preserveAspectRatio="none" role="group" aria-label="Runs started per interval, by status">
          {buckets.map((bucket, i) => {
            let y = HEIGHT;
            return STATUSES.filter((s) => bucket.counts[s] > 0).map((status) => {
              const h = (bucket.counts[status] / max) * HEIGHT;
              y -= h;
              const view = target(status, bucket.start);
              return (
                <a href={hrefOf(view)} onClick={onLinkClick(view)} aria-label={`${label(bucket.start)}: ${bucket.counts[status]} ${status.toLowerCase()}`} data-status={status} data-start={new Date(bucket.start).toISOString()}>
                  <rect class={`seg status-${status.toLowerCase()}`} x={i * (BAR + GAP)} y={y} width={BAR} height={h}>
                    <title>{`${label(bucket.start)}: ${bucket.counts[status]} ${status.toLowerCase()}`}</title>
                  </rect>
                </a>
              );
            });
          })}
        </svg>
      </div>
      <figcaption class="chart-axis muted">
        <span>{buckets.length > 0 ? minute(buckets[0]!.start, zone) : ''}</span>
        <span>{buckets.length > 0 ? minute(buckets.at(-1)!.start + INTERVAL_MS[interval], zone) : ''}</span>
      </figcaption>
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
