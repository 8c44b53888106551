// Duration percentiles per workflow and period as a chart: uPlot draws p50, p90 and p99 as nested bars, one row per
// row of the table below it. The table holds the numbers and the links a keyboard and a screen reader use; the chart
// is a picture of it whose bars a pointer can still click (each row's link laid over its bars, kept out of Tab).
import { useRef } from 'preact/hooks';
import type { DurationRow } from './api.ts';
import { ChartLinks } from './chart-links.tsx';
import { useColorScheme } from './chart-theme.ts';
import { durationPlot, PERCENTILES } from './duration-chart-plot.ts';
import { formatDuration, formatTime } from './format.ts';
import { usePlot } from './use-plot.tsx';
import type { ViewState } from './view-state.ts';

const ROW = 30;
/** The duration axis and uPlot's padding above the rows. */
const AXIS = 64;

interface ChartProps {
  /** Finished rows only (a row without a duration has no bar). */
  readonly rows: readonly DurationRow[];
  readonly daily: boolean;
  readonly target: (row: DurationRow) => ViewState;
}

/** The bar's tooltip: `orders, 2026-11-29 (UTC): p99 8.00 s, p90 8.00 s, p50 2.00 s`. */
function rowName(row: DurationRow, daily: boolean): string {
  const period = formatTime(row.start, false, 'utc').slice(0, daily ? 10 : 16);
  return `${row.name ?? '—'}, ${period} (UTC): ${PERCENTILES.map((p) => `${p} ${formatDuration(row.durationMs?.[p] ?? null)}`).join(', ')}`;
}

export function DurationChart({ rows, daily, target }: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const scheme = useColorScheme();
  const key = JSON.stringify([daily, scheme, rows]);
  usePlot(host, key, rows.length * ROW + AXIS, (el, UPlot) => {
    const plot = durationPlot(UPlot, rows, daily, el);
    const links = (chart: Parameters<typeof plot.bars>[0]) =>
      plot.bars(chart).map(({ row, ...box }) => ({ ...box, view: target(row), name: rowName(row, daily), className: 'row-bar', data: { name: row.name ?? '', start: row.start } }));
    return { ...plot, links: (chart) => <ChartLinks links={links(chart)} label="Duration percentiles per workflow" focusable={false} /> };
  });
  return (
    <figure class="chart" data-testid="duration-chart" aria-hidden="true">
      <div class="chart-plot" ref={host} />
      <ul class="legend">
        {[...PERCENTILES].reverse().map((p) => (
          <li>
            <span class={`swatch pct-${p}`} aria-hidden="true" />
            {p}
          </li>
        ))}
      </ul>
    </figure>
  );
}
