// The uPlot set-up of the duration percentiles: one row per workflow and period (the table's rows, in its order),
// p99, p90 and p50 as nested horizontal bars from zero (each narrower than the one before, so all three show), on one
// duration axis with steps a person reads (seconds, minutes, hours). uPlot reports where it drew each p99 bar: the
// row's link is laid over it.
import type uPlot from 'uplot';
import type { DurationRow } from './api.ts';
import { overBox } from './chart-links.tsx';
import type { Box } from './chart-links.tsx';
import { cssVar } from './chart-theme.ts';
import { formatDuration, formatTime } from './format.ts';
import { axisStyle } from './status-chart-plot.ts';
import type { UPlot } from './use-plot.tsx';

export const PERCENTILES = ['p99', 'p90', 'p50'] as const;
/** Each percentile's colour (the stylesheet's) and its bar's share of the row's height. */
const LOOK = { p99: { colour: '--faulted', size: 0.8 }, p90: { colour: '--suspended', size: 0.5 }, p50: { colour: '--completed', size: 0.2 } } as const;
/** Tick steps in milliseconds: round seconds, minutes, hours and days. */
const DURATION_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5, 1728e5, 6048e5];
const LABEL_CHARS = 28;

export interface RowBar extends Box {
  readonly row: DurationRow;
}

export interface DurationPlot {
  readonly options: Omit<uPlot.Options, 'width' | 'height'>;
  readonly data: uPlot.AlignedData;
  /** Each row's p99 bar where the chart as last drawn put it. */
  readonly bars: (chart: uPlot) => RowBar[];
}

/** `2.5 s`, `500 ms`, `2 min 00 s`: a tick's label. */
function durationTick(ms: number): string {
  if (ms === 0) return '0';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(2))} s`;
  return formatDuration(ms);
}

/** The row's label: the workflow, and its period when the rows span several (`orders · 11-29`). */
export function rowLabel(row: DurationRow, periods: number, daily: boolean): string {
  const name = row.name ?? '—';
  const short = name.length > LABEL_CHARS ? `${name.slice(0, LABEL_CHARS - 1)}…` : name;
  if (periods < 2) return short;
  const time = formatTime(row.start, false, 'utc');
  return `${short} · ${daily ? time.slice(5, 10) : time.slice(11, 16)}`;
}

/** The widest label in CSS pixels in the axis font, so the left axis fits it. */
function widest(labels: readonly string[], font: string): number {
  const context = document.createElement('canvas').getContext('2d');
  if (context === null) return labels.reduce((max, l) => Math.max(max, l.length * 7), 0);
  context.font = font;
  return labels.reduce((max, l) => Math.max(max, context.measureText(l).width), 0);
}

export function durationPlot(UPlot: UPlot, rows: readonly DurationRow[], daily: boolean, themed: Element): DurationPlot {
  const periods = new Set(rows.map((r) => r.start)).size;
  const labels = rows.map((r) => rowLabel(r, periods, daily));
  const axis = axisStyle(themed);
  const labelWidth = Math.ceil(widest(labels, String(axis.font))) + 14;
  const drawn = new Map<number, readonly [number, number, number, number]>();
  const series = PERCENTILES.map((p) => ({
    label: p,
    fill: cssVar(themed, LOOK[p].colour),
    stroke: 'transparent',
    width: 0,
    points: { show: false },
    paths: UPlot.paths.bars!({ size: [LOOK[p].size, Infinity, 1], ...(p === 'p99' ? { each: (_u, _s, index, ...box) => drawn.set(index, box) } : {}) }),
  }));
  const options: DurationPlot['options'] = {
    legend: { show: false },
    cursor: { show: false },
    scales: {
      // Rows top to bottom; durations left to right from zero.
      x: { time: false, ori: 1, dir: -1, range: [-0.5, rows.length - 0.5] },
      y: { ori: 0, dir: 1, range: (_u, _min, max) => [0, max <= 0 ? 1 : max * 1.05] },
    },
    axes: [
      { ...axis, scale: 'x', side: 3, grid: { show: false }, size: labelWidth, splits: () => rows.map((_, i) => i), values: (_u, splits) => splits.map((i) => labels[i] ?? '') },
      { ...axis, scale: 'y', side: 2, space: 80, incrs: DURATION_STEPS, values: (_u, splits) => splits.map(durationTick) },
    ],
    series: [{}, ...series],
  };
  const data: uPlot.AlignedData = [rows.map((_, i) => i), ...PERCENTILES.map((p) => rows.map((r) => r.durationMs?.[p] ?? null))];
  const bars = (chart: uPlot): RowBar[] =>
    rows.flatMap((row, index) => {
      const box = drawn.get(index);
      return box === undefined ? [] : [{ row, ...overBox(chart.bbox, UPlot.pxRatio, ...box) }];
    });
  return { options, data, bars };
}
