// The selected task execution: which execution of its position it is (a loop's "iteration 2 of 3"), its times, its
// own error (unless it is the run's error, already shown at the top) and its input and output.
import { useEffect, useRef } from 'preact/hooks';
import type { ProblemDetails, TaskRow } from './api.ts';
import { ErrorBox, sameError } from './error-box.tsx';
import { JsonBlock } from './json-view.tsx';
import { StatusBadge } from './status-badge.tsx';
import type { Iteration } from './task-iterations.ts';
import { TimeText } from './time-text.tsx';

interface TaskDetailsProps {
  readonly task: TaskRow;
  readonly iteration: Iteration;
  readonly runError: ProblemDetails | null;
  /** Scroll to the panel and move the focus into it (it was opened from a link elsewhere on the page). */
  readonly focus: boolean;
  readonly onFocused: () => void;
  readonly onClose: () => void;
}

export function TaskDetails({ task, iteration, runError, focus, onFocused, onClose }: TaskDetailsProps) {
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!focus || panel.current === null) return;
    panel.current.scrollIntoView({ block: 'start' });
    panel.current.focus({ preventScroll: true });
    onFocused();
  }, [focus, task.id]);
  const raisedRunError = sameError(task.error, runError);
  return (
    <section class="task-details" aria-labelledby="task-title" data-testid="task-details" ref={panel} tabIndex={-1}>
      <div class="json-head">
        <h3 id="task-title">
          {task.taskName} <StatusBadge status={task.status} /> <code>{task.id}</code>
        </h3>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="muted" data-testid="task-iteration">
        {iteration.of > 1 ? `${iteration.kind} ${iteration.number} of ${iteration.of}` : `the only ${iteration.kind}`} of position{' '}
        <code>{task.taskPosition}</code>
      </p>
      <p class="muted">
        <TimeText iso={task.startDate} precise /> → {task.endDate === null ? 'running' : <TimeText iso={task.endDate} precise />}
      </p>
      {task.error !== null && !raisedRunError && <ErrorBox title="Task error" error={task.error} />}
      {raisedRunError && (
        <p class="raised" data-testid="raised-run-error">
          This execution raised the run's error, shown above.
        </p>
      )}
      <div class="payloads">
        <JsonBlock label="Task input" text={task.inputData} />
        <JsonBlock label="Task output" text={task.outputData} />
      </div>
    </section>
  );
}
