// One run: its fields, input/output, error, the task timeline and the same executions as a table; a selected
// execution (in the URL: task=) shows its own input, output and error.
import { getRun, runQueryFor } from './api.ts';
import type { ProblemDetails, Run, TaskRow } from './api.ts';
import { durationOf, formatDuration, formatTime, parseJson } from './format.ts';
import { JsonBlock } from './json-view.tsx';
import { hrefOf, navigate, onLinkClick } from './navigation.ts';
import { StatusBadge } from './status-badge.tsx';
import { layoutTimeline } from './timeline-layout.ts';
import { TimelineView } from './timeline.tsx';
import { useNow, useQuery } from './use-query.ts';
import type { ViewState } from './view-state.ts';

export function RunPage({ view, run, tick }: { view: ViewState; run: string; tick: number }) {
  const result = useQuery(`run:${run}`, tick, (signal) => getRun(run, signal));
  const back: ViewState = { ...view, run: null, task: null };
  const data = result.data;
  return (
    <article aria-labelledby="run-title">
      <p class="crumbs">
        <a href={hrefOf(back)} onClick={onLinkClick(back)}>
          ← All runs
        </a>
      </p>
      <h1 id="run-title">
        Run <code>{run}</code>
      </h1>
      {result.state === 'error' && (
        <p class="error-banner" role="alert">
          Could not load the run: {result.message}
        </p>
      )}
      {result.state === 'ready' && data === null && <p class="error-banner">No run with this id (it may not have started yet, or the id is mistyped).</p>}
      {data !== null && <RunDetails view={view} run={data} />}
    </article>
  );
}

function RunDetails({ view, run }: { view: ViewState; run: Run }) {
  const running = run.endDate === null || run.taskExecutions.some((t) => t.endDate === null);
  const now = useNow(running);
  const timeline = layoutTimeline(run.taskExecutions, run.startDate, run.endDate, now);
  const selected = run.taskExecutions.find((t) => t.id === view.task) ?? null;
  const select = (id: string): void => navigate({ ...view, task: view.task === id ? null : id }, { replace: true });
  const graphiql = `/q/graphql-ui?query=${encodeURIComponent(runQueryFor(run.id))}`;
  return (
    <>
      <div class="run-head">
        <StatusBadge status={run.status} />
        <a class="button secondary" href={graphiql} data-testid="open-graphiql">
          Open this query in the GraphQL UI
        </a>
      </div>
      <dl class="fields">
        <dt>Workflow</dt>
        <dd>{run.name}</dd>
        <dt>Namespace</dt>
        <dd>{run.namespace ?? '—'}</dd>
        <dt>Version</dt>
        <dd>{run.version ?? '—'}</dd>
        <dt>Start (UTC)</dt>
        <dd>{formatTime(run.startDate, true)}</dd>
        <dt>End (UTC)</dt>
        <dd>{formatTime(run.endDate, true)}</dd>
        <dt>Duration</dt>
        <dd>
          {formatDuration(durationOf(run.startDate, run.endDate, now))}
          {run.endDate === null ? ' so far' : ''}
        </dd>
        <dt>Last update (UTC)</dt>
        <dd>{formatTime(run.lastUpdate)}</dd>
      </dl>
      {run.error !== null && <ErrorBox title="Error" error={run.error} />}
      <div class="payloads">
        <JsonBlock label="Input" text={run.inputData} />
        <JsonBlock label="Output" text={run.outputData} />
      </div>
      <h2>Timeline</h2>
      <TimelineView timeline={timeline} selected={view.task} onSelect={select} />
      {selected !== null && <TaskDetails task={selected} onClose={() => select(selected.id)} />}
      <h2>Task executions</h2>
      <TaskTable view={view} tasks={run.taskExecutions} now={now} />
    </>
  );
}

function TaskTable({ view, tasks, now }: { view: ViewState; tasks: readonly TaskRow[]; now: number }) {
  return (
    <div class="table-wrap">
      <table class="tasks" data-testid="tasks">
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Position</th>
            <th scope="col">Status</th>
            <th scope="col">Start (UTC)</th>
            <th scope="col">End (UTC)</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((t) => {
            const target: ViewState = { ...view, task: t.id };
            return (
              <tr class={view.task === t.id ? 'selected' : ''} data-task-id={t.id}>
                <td>
                  <a href={hrefOf(target)} onClick={onLinkClick(target)}>
                    {t.taskName}
                  </a>
                </td>
                <td>
                  <code>{t.taskPosition}</code>
                </td>
                <td>
                  <StatusBadge status={t.status} />
                </td>
                <td class="time">{formatTime(t.startDate, true)}</td>
                <td class="time">{formatTime(t.endDate, true)}</td>
                <td class="num">{formatDuration(durationOf(t.startDate, t.endDate, now))}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function TaskDetails({ task, onClose }: { task: TaskRow; onClose: () => void }) {
  return (
    <section class="task-details" aria-labelledby="task-title" data-testid="task-details">
      <div class="json-head">
        <h3 id="task-title">
          {task.taskName} <StatusBadge status={task.status} /> <code>{task.id}</code>
        </h3>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="muted">
        {formatTime(task.startDate, true)} → {task.endDate === null ? 'running' : formatTime(task.endDate, true)} UTC
      </p>
      {task.error !== null && <ErrorBox title="Task error" error={task.error} />}
      <div class="payloads">
        <JsonBlock label="Task input" text={task.inputData} />
        <JsonBlock label="Task output" text={task.outputData} />
      </div>
    </section>
  );
}

function ErrorBox({ title, error }: { title: string; error: ProblemDetails }) {
  return (
    <section class="error-box" aria-label={title}>
      <h3>
        {title}: {error.title ?? error.type ?? 'error'}
        {error.status !== null && <span class="muted"> (status {error.status})</span>}
      </h3>
      <dl class="fields">
        {error.type !== null && (
          <>
            <dt>Type</dt>
            <dd>
              <code>{error.type}</code>
            </dd>
          </>
        )}
        {error.instance !== null && (
          <>
            <dt>Raised by</dt>
            <dd>
              <code>{error.instance}</code>
            </dd>
          </>
        )}
      </dl>
      {error.detail !== null && <pre class="stack">{readableDetail(error.detail)}</pre>}
    </section>
  );
}

/** A detail that is JSON (runtimes often put a serialized problem there) is indented; text, stack traces included, stays as it is. */
function readableDetail(detail: string): string {
  const parsed = parseJson(detail);
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? JSON.stringify(parsed.value, null, 2) : detail;
}
