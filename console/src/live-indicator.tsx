// "Live" while the page's stream is up; otherwise what updates the page instead (auto-refresh, or nothing).
import { useLiveState } from './live-status.ts';

export function LiveIndicator({ refresh }: { refresh: number }) {
  const state = useLiveState();
  if (state === 'live') {
    return (
      <span class="live live-on" data-testid="live" data-state="live" title="Changes appear as they are indexed (no polling)">
        <span aria-hidden="true">● </span>Live
      </span>
    );
  }
  const label = state === 'connecting' ? 'Connecting…' : refresh > 0 ? `Polling every ${refresh} s` : 'Not live';
  const title = state === 'connecting' ? 'Opening the live stream' : 'Live updates are not available now (retried in the background); auto-refresh polls meanwhile when it is on';
  return (
    <span class="live live-off" data-testid="live" data-state={state} title={title}>
      <span aria-hidden="true">○ </span>
      {label}
    </span>
  );
}
