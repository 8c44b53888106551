// The insights page's tables: duration percentiles per workflow and period (drawn above it by duration-chart.tsx),
// top errors, top failing tasks. Each row links to the runs list filtered to the runs it counts.
import type { DurationRow, ErrorCount, TaskFailureCount } from './api.ts';
import { formatDuration, formatTime } from './format.ts';
import { hrefOf, onLinkClick } from './navigation.ts';
import { TimeText } from './time-text.tsx';
import type { ViewState } from './view-state.ts';

function Link({ view, children, label }: { view: ViewState; children: preact.ComponentChildren; label?: string }) {
  return (
    <a href={hrefOf(view)} onClick={onLinkClick(view)} {...(label === undefined ? {} : { 'aria-label': label })}>
      {children}
    </a>
  );
}

const PERCENTILES = ['p50', 'p90', 'p99'] as const;

interface DurationProps {
  readonly rows: readonly DurationRow[];
  /** Buckets are UTC days (else UTC hours): their label is in UTC whatever zone times are shown in. */
  readonly daily: boolean;
  readonly target: (row: DurationRow) => ViewState;
}

/** The rows with finished runs: the only ones with durations (the chart's rows and the table's). */
export function finishedRows(rows: readonly DurationRow[]): DurationRow[] {
  return rows.filter((r) => r.durationMs !== null && r.durationMs.count > 0);
}

export function DurationTable({ rows, daily, target }: DurationProps) {
  const finished = finishedRows(rows);
  if (finished.length === 0) return <p class="muted">No finished runs in this range.</p>;
  return (
    <div class="table-wrap">
      <table class="durations" data-testid="durations">
        <thead>
          <tr>
            <th scope="col">Workflow</th>
            <th scope="col">{daily ? 'Day' : 'Hour'} (UTC)</th>
            <th scope="col" class="num">Finished</th>
            {PERCENTILES.map((p) => (
              <th scope="col" class="num">
                {p}
              </th>
            ))}
            <th scope="col" class="num">Max</th>
          </tr>
        </thead>
        <tbody>
          {finished.map((row) => {
            const d = row.durationMs!;
            return (
              <tr data-name={row.name ?? ''} data-start={row.start}>
                <td>
                  <Link view={target(row)}>{row.name ?? '—'}</Link>
                </td>
                <td class="time">{formatTime(row.start, false, 'utc').slice(0, daily ? 10 : 16)}</td>
                <td class="num">{d.count}</td>
                {PERCENTILES.map((p) => (
                  <td class="num" data-p={p}>
                    {formatDuration(d[p])}
                  </td>
                ))}
                <td class="num">{formatDuration(d.max)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function ErrorsTable({ errors, target }: { errors: readonly ErrorCount[]; target: (e: ErrorCount) => ViewState }) {
  if (errors.length === 0) return <p class="muted">No faulted runs in this range.</p>;
  return (
    <div class="table-wrap">
      <table class="top-errors" data-testid="top-errors">
        <thead>
          <tr>
            <th scope="col">Error (title and type)</th>
            <th scope="col" class="num">Status</th>
            <th scope="col" class="num">Runs</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((e) => (
            <tr>
              <td>
                <Link view={target(e)}>{e.title ?? '(no title)'}</Link>
                <div class="error-type muted">{e.type ?? 'no type'}</div>
              </td>
              <td class="num">{e.status ?? '—'}</td>
              <td class="num">{e.count}</td>
              <td class="time">
                <TimeText iso={e.lastSeen} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function FailingTasksTable({ tasks, target }: { tasks: readonly TaskFailureCount[]; target: (t: TaskFailureCount) => ViewState }) {
  if (tasks.length === 0) return <p class="muted">No faulted task executions in this range.</p>;
  return (
    <div class="table-wrap">
      <table class="top-tasks" data-testid="top-tasks">
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Workflow</th>
            <th scope="col" class="num">Faulted executions</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((t) => (
            <tr>
              <td>
                <Link view={target(t)}>
                  <code>{t.taskPosition}</code>
                </Link>{' '}
                {t.taskName !== null && <span class="muted">({t.taskName})</span>}
              </td>
              <td>{t.workflowName ?? '—'}</td>
              <td class="num">{t.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
