// A run's event history (the run page's Events tab): every event the index holds, in event-time order, rejected ones
// marked with the normalizer's reason, each event's stored JSON behind a disclosure. Paged by the events' cursors;
// the cursor's place is stable, so "load more" after the last page also picks up events that arrived since, which the
// tab does by itself each time the run is pushed or reloaded (`version`) once the whole history is shown.
import { useEffect, useRef, useState } from 'preact/hooks';
import { getRunEvents } from './api.ts';
import type { RunEvent } from './api.ts';
import { JsonBlock } from './json-view.tsx';
import { TimeText } from './time-text.tsx';

export const EVENTS_PAGE = 50;

interface History {
  readonly events: readonly RunEvent[];
  /** The last page was full: there may be more. */
  readonly full: boolean;
  readonly loading: boolean;
  readonly error: string | null;
}

const EMPTY: History = { events: [], full: false, loading: true, error: null };

/** `version`: the run as last loaded or pushed; a new one may come with new events. */
export function RunEvents({ run, version }: { run: string; version: object }) {
  const [history, setHistory] = useState<History>(EMPTY);
  const load = (after: string | null, signal?: AbortSignal): void => {
    setHistory((h) => ({ ...h, loading: true, error: null }));
    getRunEvents(run, EVENTS_PAGE, after, signal).then(
      (page) => setHistory((h) => ({ events: [...(after === null ? [] : h.events), ...(page ?? [])], full: (page ?? []).length === EVENTS_PAGE, loading: false, error: null })),
      (error: unknown) => {
        if (signal?.aborted !== true) setHistory((h) => ({ ...h, loading: false, error: error instanceof Error ? error.message : String(error) }));
      },
    );
  };
  useEffect(() => {
    const controller = new AbortController();
    setHistory(EMPTY);
    load(null, controller.signal);
    return () => controller.abort();
  }, [run]);
  const last = history.events.at(-1);
  const seen = useRef(version);
  const behind = useRef(false);
  useEffect(() => {
    if (seen.current === version) return;
    seen.current = version;
    behind.current = true;
  }, [version]);
  // Newer events are asked for at the end of the history only (a reader paging through a long one asks for more
  // themselves), and a push that comes while a page is loading is answered once that page is in, not dropped.
  useEffect(() => {
    if (!behind.current || history.loading || history.full || last === undefined) return;
    behind.current = false;
    load(last.cursor);
  }, [version, history.loading]);
  const rejected = history.events.filter((e) => !e.accepted).length;
  return (
    <section aria-labelledby="events-title" data-testid="run-events">
      <h2 id="events-title">Events</h2>
      <p class="muted">
        {history.events.length} {history.events.length === 1 ? 'event' : 'events'} shown
        {rejected > 0 ? `, ${rejected} rejected by the normalizer (they changed nothing in the run)` : ''}.
      </p>
      <ol class="events" aria-busy={history.loading}>
        {history.events.map((event) => (
          <EventItem event={event} />
        ))}
      </ol>
      {history.error !== null && (
        <p class="error-banner" role="alert">
          Could not load the events: {history.error}
        </p>
      )}
      <button type="button" class="secondary" disabled={history.loading} data-testid="more-events" onClick={() => load(last?.cursor ?? null)}>
        {history.loading ? 'Loading…' : history.full ? 'Load more' : 'Check for newer events'}
      </button>
    </section>
  );
}

function EventItem({ event }: { event: RunEvent }) {
  return (
    <li class={event.accepted ? 'event' : 'event rejected'} data-accepted={String(event.accepted)}>
      <div class="event-head">
        <span class="time">{event.time === null ? 'time unreadable' : <TimeText iso={event.time} precise withZone />}</span>
        <span class="event-type" title={event.type}>
          {event.type === '' ? '(no type)' : event.type.replace(/^io\.serverlessworkflow\./, '')}
        </span>
        {event.taskPosition !== null && <code class="event-task">{event.taskPosition}</code>}
        {!event.accepted && <span class="badge status-faulted">REJECTED</span>}
      </div>
      {!event.accepted && (
        <p class="rejection" data-testid="rejection">
          Rejected: {event.rejection ?? 'no reason was recorded'}.
        </p>
      )}
      {event.data === null ? (
        <p class="muted event-nodata">No data (payloads are not visible to you, or the raw record has been deleted).</p>
      ) : (
        <details class="event-data">
          <summary>Event data</summary>
          <JsonBlock label="Event" text={event.data} />
        </details>
      )}
    </li>
  );
}
