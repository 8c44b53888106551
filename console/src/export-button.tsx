// "Export CSV / JSONL" under the runs list: every run matching the list's filters (not only this page), newest first.
import { useState } from 'preact/hooks';
import { downloadWithSession, exportUrl } from './export-runs.ts';
import type { ExportFormat } from './export-runs.ts';
import { baseFilter, withStatuses } from './filters.ts';
import { signInSettings } from './sign-in-settings.ts';
import type { ListView } from './view-state.ts';

const FORMATS: readonly { format: ExportFormat; label: string }[] = [
  { format: 'csv', label: 'CSV' },
  { format: 'jsonl', label: 'JSONL' },
];

export function ExportButtons({ list }: { list: ListView }) {
  const [state, setState] = useState<{ busy: ExportFormat | null; error: string | null }>({ busy: null, error: null });
  const signedIn = signInSettings().mode === 'oidc';
  // Relative ranges ("last hour") are resolved when the link is followed or the button pressed.
  const urlOf = (format: ExportFormat): string => exportUrl(withStatuses(baseFilter(list, Date.now()), list.statuses), format);
  const save = (format: ExportFormat): void => {
    setState({ busy: format, error: null });
    downloadWithSession(urlOf(format), format).then(
      () => setState({ busy: null, error: null }),
      (error: unknown) => setState({ busy: null, error: error instanceof Error ? error.message : String(error) }),
    );
  };
  return (
    <div class="export" data-testid="export">
      <span class="muted">Export all matching runs:</span>
      {FORMATS.map(({ format, label }) =>
        signedIn ? (
          <button type="button" class="secondary" data-format={format} disabled={state.busy !== null} onClick={() => save(format)}>
            {state.busy === format ? `${label}…` : label}
          </button>
        ) : (
          <a class="button secondary" data-format={format} href={urlOf(format)} download onClick={(e) => ((e.currentTarget as HTMLAnchorElement).href = urlOf(format))}>
            {label}
          </a>
        ),
      )}
      {state.error !== null && (
        <span class="error-text" role="alert">
          Export failed: {state.error}
        </span>
      )}
    </div>
  );
}
