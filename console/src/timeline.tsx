// Gantt-like view of a run's task executions: one lane per task position, one bar per execution (loops and
// retries repeat in their lane), FAULTED in red, RUNNING growing to now. Bars are buttons: Tab reaches them and
// Enter selects the execution (same as a click).
import { formatDuration, formatTime, zoneLabel } from './format.ts';
import { useTimeZone } from './time-zone.ts';
import type { Timeline } from './timeline-layout.ts';

export function TimelineView({ timeline, selected, onSelect }: { timeline: Timeline; selected: string | null; onSelect: (id: string) => void }) {
  const zone = useTimeZone();
  if (timeline.lanes.length === 0) return <p class="muted">No task executions with a start time.</p>;
  const span = timeline.end - timeline.start;
  const startIso = new Date(timeline.start).toISOString();
  return (
    <div class="timeline" data-testid="timeline" role="group" aria-label={`Timeline of task executions, ${formatDuration(span)} from ${formatTime(startIso, false, zone)} ${zoneLabel(zone, startIso)}`}>
      <div class="axis" aria-hidden="true">
        <div class="lane-label" />
        <div class="axis-track">
          {timeline.ticks.map((t) => (
            <span class={`tick${t.fraction > 0.92 ? ' end' : ''}`} style={{ left: `${t.fraction * 100}%` }}>
              +{formatDuration(t.at - timeline.start)}
            </span>
          ))}
        </div>
      </div>
      {timeline.lanes.map((lane) => (
        <div class="lane" data-position={lane.position}>
          <div class="lane-label" title={lane.position}>
            {lane.name}
            {lane.bars.length > 1 && <span class="repeat"> ×{lane.bars.length}</span>}
          </div>
          <div class="lane-track">
            {timeline.ticks.map((t) => (
              <span class="gridline" aria-hidden="true" style={{ left: `${t.fraction * 100}%` }} />
            ))}
            {lane.bars.map((bar) => {
              const t = bar.task;
              const end = t.endDate === null ? 'still running' : `ended ${formatTime(t.endDate, false, zone)}`;
              return (
                <button
                  type="button"
                  class={`bar status-${t.status.toLowerCase()}${bar.open ? ' open' : ''}${selected === t.id ? ' selected' : ''}`}
                  data-task-id={t.id}
                  aria-pressed={selected === t.id}
                  aria-label={`${t.taskName} execution ${bar.attempt} of ${lane.bars.length}: ${t.status}, started ${formatTime(t.startDate, false, zone)}, ${end}`}
                  title={`${t.taskName} #${bar.attempt} ${t.status} ${formatDuration(bar.width * span)}`}
                  style={{ left: `${bar.left * 100}%`, width: `${bar.width * 100}%` }}
                  onClick={() => onSelect(t.id)}
                >
                  {lane.bars.length > 1 && <span class="attempt">{bar.attempt}</span>}
                </button>
              );
            })}
          </div>
        </div>
      ))}
      <p class="legend" aria-hidden="true">
        <span class="swatch status-completed" /> completed <span class="swatch status-faulted" /> faulted <span class="swatch status-running" /> running{' '}
        <span class="swatch status-cancelled" /> cancelled
      </p>
    </div>
  );
}
