// "N new runs — show": matching runs started since the list was loaded (pushed by the live stream). Shown as a button
// rather than inserted, so the rows being read do not move; "show" reloads the page of the list (and its counts).
export function NewRuns({ count, onShow }: { count: number; onShow: () => void }) {
  return (
    <p class="new-runs" aria-live="polite" data-testid="new-runs">
      {count > 0 && (
        <button type="button" class="secondary" onClick={onShow}>
          {count} new {count === 1 ? 'run' : 'runs'} — show
        </button>
      )}
    </p>
  );
}
