// The uPlot set-up of the runs-per-interval chart: one bar per interval, stacked by status (each status a series
// holding the running total up to it, each series a band over the one below, so a bar's segment spans exactly its
// status's count), time ticks in the zone the console shows, colours from the stylesheet. uPlot reports where it drew
// each segment (the bars builder's `each`): `segments` gives those boxes to lay the segments' links over them.
import type uPlot from 'uplot';
import { overBox } from './chart-links.tsx';
import type { Box } from './chart-links.tsx';
import { axisFont, cssVar } from './chart-theme.ts';
import { formatTime } from './format.ts';
import type { TimeZone } from './format.ts';
import type { Interval, StatusBucket } from './insights-range.ts';
import { INTERVAL_MS } from './insights-range.ts';
import type { UPlot } from './use-plot.tsx';
import { STATUSES } from './view-state.ts';
import type { Status } from './view-state.ts';

export interface Segment extends Box {
  readonly status: Status;
  readonly bucket: StatusBucket;
}

export interface StatusPlot {
  readonly options: Omit<uPlot.Options, 'width' | 'height'>;
  readonly data: uPlot.AlignedData;
  /** The segments with a count, where the chart as last drawn put them. */
  readonly segments: (chart: uPlot) => Segment[];
}

/** Counts are whole numbers: no tick at 0.5. */
export const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 1_000_000];

/** A tick's label: the date at midnight, else the time of day (`11-29`, `09:00`), in the zone shown. */
function tickLabel(ms: number, zone: TimeZone): string {
  const text = formatTime(new Date(ms).toISOString(), false, zone);
  return text.slice(11, 16) === '00:00' ? text.slice(5, 10) : text.slice(11, 16);
}

/** x: each bucket's middle (a bar sits between the ticks of its interval); then per status the running total up to it. */
export function stackedData(buckets: readonly StatusBucket[], interval: Interval): uPlot.AlignedData {
  const middle = buckets.map((b) => b.start + INTERVAL_MS[interval] / 2);
  const totals = STATUSES.map((_, k) => buckets.map((b) => STATUSES.slice(0, k + 1).reduce((sum, s) => sum + b.counts[s], 0)));
  return [middle, ...totals];
}

/** The axes' look: the stylesheet's muted text and border colours, the page's font. */
export function axisStyle(themed: Element): uPlot.Axis {
  const line = { stroke: cssVar(themed, '--border'), width: 1 };
  return { stroke: cssVar(themed, '--muted'), font: axisFont(themed), grid: line, ticks: line };
}

export function statusPlot(UPlot: UPlot, buckets: readonly StatusBucket[], range: { from: string; to: string; interval: Interval }, zone: TimeZone, themed: Element): StatusPlot {
  const drawn = new Map<string, readonly [number, number, number, number]>();
  const bars = UPlot.paths.bars!({ size: [0.8, 48, 1], each: (_u, series, index, ...box) => drawn.set(`${series}:${index}`, box) });
  const options: StatusPlot['options'] = {
    ms: 1,
    tzDate: zone === 'utc' ? (ms) => UPlot.tzDate(new Date(ms), 'Etc/UTC') : (ms) => new Date(ms),
    legend: { show: false },
    // A vertical line follows the pointer; no zooming by dragging (the range is the select's).
    cursor: { y: false, points: { show: false }, drag: { x: false, y: false, setScale: false } },
    scales: {
      x: { time: true, range: () => [Date.parse(range.from), Date.parse(range.to)] },
      y: { range: (_u, _min, max) => [0, max <= 0 ? 1 : UPlot.rangeNum(0, max, 0.1, true)[1]] },
    },
    axes: [
      { ...axisStyle(themed), values: (_u, splits) => splits.map((ms) => tickLabel(ms, zone)) },
      { ...axisStyle(themed), incrs: COUNT_STEPS, size: 40, values: (_u, splits) => splits.map(String) },
    ],
    series: [
      {},
      ...STATUSES.map((status) => ({ label: status.toLowerCase(), fill: cssVar(themed, `--${status.toLowerCase()}`), stroke: 'transparent', width: 0, points: { show: false }, paths: bars })),
    ],
    bands: STATUSES.slice(1).map((_, k) => ({ series: [k + 2, k + 1] as [number, number] })),
  };
  const segments = (chart: uPlot): Segment[] =>
    buckets.flatMap((bucket, index) =>
      STATUSES.flatMap((status, k) => {
        const box = bucket.counts[status] > 0 ? drawn.get(`${k + 1}:${index}`) : undefined;
        return box === undefined ? [] : [{ status, bucket, ...overBox(chart.bbox, UPlot.pxRatio, ...box) }];
      }),
    );
  return { options, data: stackedData(buckets, range.interval), segments };
}
