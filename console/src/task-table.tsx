// A run's task executions as a table (the timeline's data, sortable by eye, readable by screen readers).
import type { TaskRow } from './api.ts';
import { durationOf, formatDuration } from './format.ts';
import { hrefOf, onLinkClick } from './navigation.ts';
import { StatusBadge } from './status-badge.tsx';
import { TimeText } from './time-text.tsx';
import type { ViewState } from './view-state.ts';

export function TaskTable({ view, tasks, now, zone }: { view: ViewState; tasks: readonly TaskRow[]; now: number; zone: string }) {
  return (
    <div class="table-wrap">
      <table class="tasks" data-testid="tasks">
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">Position</th>
            <th scope="col">Status</th>
            <th scope="col">Start ({zone})</th>
            <th scope="col">End ({zone})</th>
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
                <td class="time">
                  <TimeText iso={t.startDate} precise />
                </td>
                <td class="time">
                  <TimeText iso={t.endDate} precise />
                </td>
                <td class="num">{formatDuration(durationOf(t.startDate, t.endDate, now))}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
