// What happened, in a few lines: status and duration, the run's fields in a compact grid, and its error with a link
// to the task execution that raised it.
import type { ComponentChildren } from 'preact';
import type { Run, TaskRow } from './api.ts';
import { ErrorBox } from './error-box.tsx';
import { durationOf, formatDuration } from './format.ts';
import { hrefOf } from './navigation.ts';
import { StatusBadge } from './status-badge.tsx';
import { TimeText } from './time-text.tsx';
import type { ViewState } from './view-state.ts';

export function RunSummary({ run, now, graphiql }: { run: Run; now: number; graphiql: string }) {
  return (
    <>
      <div class="run-head">
        <StatusBadge status={run.status} />
        <span data-testid="run-duration">
          {formatDuration(durationOf(run.startDate, run.endDate, now))}
          {run.endDate === null ? ' so far' : ''}
        </span>
        <span class="muted">
          started <TimeText iso={run.startDate} relative now={now} />
        </span>
        <a class="button secondary" href={graphiql} data-testid="open-graphiql">
          Open this query in the GraphQL UI
        </a>
      </div>
      <dl class="summary" data-testid="run-fields">
        <Field label="Workflow">{run.name}</Field>
        <Field label="Namespace">{run.namespace ?? '—'}</Field>
        <Field label="Version">{run.version ?? '—'}</Field>
        <Field label="Start">
          <TimeText iso={run.startDate} precise />
        </Field>
        <Field label="End">
          <TimeText iso={run.endDate} precise />
        </Field>
        <Field label="Last update">
          <TimeText iso={run.lastUpdate} />
        </Field>
      </dl>
    </>
  );
}

function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The run's error; its `instance` (a task position) links to the execution that raised it. */
export function RunError({ run, view, raising, onRaisingClick }: { run: Run; view: ViewState; raising: TaskRow | null; onRaisingClick: (task: TaskRow) => void }) {
  if (run.error === null) return null;
  const link =
    raising === null ? undefined : (
      <a
        href={hrefOf({ ...view, task: raising.id })}
        data-task-id={raising.id}
        onClick={(event: MouseEvent) => {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          onRaisingClick(raising);
        }}
      >
        <code>{run.error.instance}</code> ({raising.taskName})
      </a>
    );
  return <ErrorBox title="Error" error={run.error} raisedBy={link} />;
}
