// Where each item of the insights page leads: the runs list with the filters that select the item's runs, every
// other list setting at its default (a drill-down answers "which runs are these", not "these within my last filter").
import { bucketWindow } from './insights-range.ts';
import type { InsightsRange, Interval } from './insights-range.ts';
import { DEFAULT_LIST } from './view-state.ts';
import type { ListView, Status, ViewState } from './view-state.ts';

function runsWith(view: ViewState, change: Partial<ListView>): ViewState {
  return { ...view, screen: 'runs', run: null, task: null, tab: null, list: { ...DEFAULT_LIST, size: view.list.size, ...change } };
}

/** The whole range as the list's custom bounds (`to` inclusive: a millisecond before the range's end). */
export function rangeBounds(range: InsightsRange): { range: 'custom'; from: string; to: string } {
  return { range: 'custom', from: range.from, to: lastInstant(range) };
}

export function lastInstant(range: InsightsRange): string {
  return new Date(Date.parse(range.to) - 1).toISOString();
}

export function statusBucketView(view: ViewState, status: Status, start: number, range: InsightsRange): ViewState {
  return runsWith(view, { statuses: [status], range: 'custom', ...bucketWindow(start, range.interval, range) });
}

export function errorView(view: ViewState, error: { type: string | null; title: string | null }, range: InsightsRange): ViewState {
  return runsWith(view, { statuses: ['FAULTED'], errorType: error.type ?? '', errorTitle: error.title ?? '', ...rangeBounds(range) });
}

export function failingTaskView(view: ViewState, task: { taskPosition: string; workflowName: string | null }, range: InsightsRange): ViewState {
  return runsWith(view, { failedTask: task.taskPosition, name: task.workflowName ?? '', match: 'exact', ...rangeBounds(range) });
}

export function durationView(view: ViewState, name: string, start: number, interval: Interval, range: InsightsRange): ViewState {
  return runsWith(view, { name, match: 'exact', range: 'custom', ...bucketWindow(start, interval, range), sort: 'duration', direction: 'DESC' });
}
