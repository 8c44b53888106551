// The run page's timeline as numbers: one lane per task position in order of first start, one bar per execution
// (loops and retries are several bars in one lane), x as fractions of the run's time span. Pure: tested without a
// browser.

export interface TimelineTask {
  readonly id: string;
  readonly taskName: string;
  readonly taskPosition: string;
  readonly status: string;
  readonly startDate: string | null;
  readonly endDate: string | null;
}

export interface Bar {
  readonly task: TimelineTask;
  /** 0..1 of the axis. */
  readonly left: number;
  /** 0..1 of the axis; a zero-length execution still gets a visible minimum in CSS. */
  readonly width: number;
  /** The bar ends at "now": the execution is still running. */
  readonly open: boolean;
  /** 1-based execution number within its lane (loop iteration or retry attempt). */
  readonly attempt: number;
}

export interface Lane {
  readonly position: string;
  readonly name: string;
  readonly bars: readonly Bar[];
}

export interface Timeline {
  readonly start: number;
  readonly end: number;
  readonly lanes: readonly Lane[];
  /** Ticks at round intervals inside [start, end]: epoch ms with their offset from the start. */
  readonly ticks: readonly { readonly at: number; readonly fraction: number }[];
}

const TICK_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];

export function layoutTimeline(tasks: readonly TimelineTask[], runStart: string | null, runEnd: string | null, now: number): Timeline {
  const timed = tasks.filter((t) => t.startDate !== null && !Number.isNaN(Date.parse(t.startDate)));
  const starts = timed.map((t) => Date.parse(t.startDate as string));
  // A bar never ends before it starts: a start after our clock's now (skew) or an end before the start is a point.
  const ends = timed.map((t, i) => Math.max(starts[i] as number, t.endDate === null ? now : Date.parse(t.endDate)));
  const runFrom = runStart === null ? Number.NaN : Date.parse(runStart);
  const runTo = runEnd === null ? Number.NaN : Date.parse(runEnd);
  const candidatesStart = [...starts, runFrom].filter(Number.isFinite);
  const candidatesEnd = [...ends, runTo, ...(runEnd === null && runStart !== null ? [now] : [])].filter(Number.isFinite);
  const start = candidatesStart.length > 0 ? Math.min(...candidatesStart) : now;
  const end = Math.max(start + 1, ...candidatesEnd);
  const span = end - start;

  const lanes = new Map<string, { name: string; bars: Bar[] }>();
  const ordered = timed.map((t, i) => ({ t, from: starts[i] as number, to: ends[i] as number })).sort((a, b) => a.from - b.from || a.t.id.localeCompare(b.t.id));
  for (const { t, from, to } of ordered) {
    let lane = lanes.get(t.taskPosition);
    if (lane === undefined) {
      lane = { name: t.taskName, bars: [] };
      lanes.set(t.taskPosition, lane);
    }
    lane.bars.push({ task: t, left: (from - start) / span, width: Math.max(0, to - from) / span, open: t.endDate === null, attempt: lane.bars.length + 1 });
  }
  return {
    start,
    end,
    lanes: [...lanes].map(([position, lane]) => ({ position, name: lane.name, bars: lane.bars })),
    ticks: ticks(start, end),
  };
}

function ticks(start: number, end: number): { at: number; fraction: number }[] {
  const span = end - start;
  const step = TICK_STEPS.find((s) => span / s <= 6) ?? Math.ceil(span / 6 / 86_400_000) * 86_400_000;
  const out: { at: number; fraction: number }[] = [];
  for (let offset = 0; offset <= span; offset += step) out.push({ at: start + offset, fraction: offset / span });
  return out;
}
