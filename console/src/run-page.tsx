// One run, in the order that answers "what happened": status and error summary, the task timeline and the selected
// execution (in the URL: task=), then the payloads and the executions as a table.
import { useState } from 'preact/hooks';
import { getRun, runQueryFor } from './api.ts';
import { useLiveRun } from './use-live-run.ts';
import type { Run } from './api.ts';
import { JsonBlock } from './json-view.tsx';
import { hrefOf, navigate, onLinkClick } from './navigation.ts';
import { RunEvents } from './run-events.tsx';
import { RunError, RunSummary } from './run-summary.tsx';
import { RunTabs } from './run-tabs.tsx';
import { iterationOf, raisingTask } from './task-iterations.ts';
import { TaskDetails } from './task-details.tsx';
import { TaskTable } from './task-table.tsx';
import { layoutTimeline } from './timeline-layout.ts';
import { TimelineView } from './timeline.tsx';
import { zoneLabel } from './format.ts';
import { useTimeZone } from './time-zone.ts';
import { useNow, useQuery } from './use-query.ts';
import type { ViewState } from './view-state.ts';

export function RunPage({ view, run, tick }: { view: ViewState; run: string; tick: number }) {
  const result = useQuery(`run:${run}`, tick, (signal) => getRun(run, signal));
  const back: ViewState = { ...view, run: null, task: null, tab: null };
  const data = useLiveRun(run, result.data);
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
  // The execution to scroll to and focus once shown (opened from the error's "raised by" link).
  const [focusTask, setFocusTask] = useState<string | null>(null);
  const graphiql = `/q/graphql-ui?query=${encodeURIComponent(runQueryFor(run.id))}`;
  const raising = raisingTask(run.taskExecutions, run.error?.instance ?? null);
  return (
    <>
      <RunSummary run={run} now={now} graphiql={graphiql} />
      <RunError
        run={run}
        view={view}
        raising={raising}
        onRaisingClick={(task) => {
          setFocusTask(task.id);
          navigate({ ...view, task: task.id, tab: null }, { replace: true });
        }}
      />
      <RunTabs view={view} />
      {view.tab === 'events' ? <RunEvents run={run.id} version={run} /> : <RunOverview view={view} run={run} now={now} focusTask={focusTask} setFocusTask={setFocusTask} />}
    </>
  );
}

interface OverviewProps {
  readonly view: ViewState;
  readonly run: Run;
  readonly now: number;
  readonly focusTask: string | null;
  readonly setFocusTask: (id: string | null) => void;
}

function RunOverview({ view, run, now, focusTask, setFocusTask }: OverviewProps) {
  const zone = useTimeZone();
  const timeline = layoutTimeline(run.taskExecutions, run.startDate, run.endDate, now);
  const selected = run.taskExecutions.find((t) => t.id === view.task) ?? null;
  const select = (id: string): void => navigate({ ...view, task: view.task === id ? null : id }, { replace: true });
  return (
    <>
      <h2>Timeline</h2>
      <TimelineView timeline={timeline} selected={view.task} onSelect={select} />
      {selected !== null && (
        <TaskDetails
          task={selected}
          iteration={iterationOf(run.taskExecutions, selected)}
          runError={run.error}
          focus={focusTask === selected.id}
          onFocused={() => setFocusTask(null)}
          onClose={() => select(selected.id)}
        />
      )}
      <h2>Input and output</h2>
      <div class="payloads">
        <JsonBlock label="Input" text={run.inputData} />
        <JsonBlock label="Output" text={run.outputData} />
      </div>
      <h2>Task executions</h2>
      <TaskTable view={view} tasks={run.taskExecutions} now={now} zone={zone === 'utc' ? 'UTC' : zoneLabel('local', run.startDate)} />
    </>
  );
}
