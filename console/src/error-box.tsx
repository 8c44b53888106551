// An error in RFC 9457 problem-details shape (type, title, status, detail, instance). The instance of a run's error is
// the position of the task that raised it: `raisedBy` makes it a link to that task execution.
import type { ComponentChildren } from 'preact';
import type { ProblemDetails } from './api.ts';
import { parseJson } from './format.ts';

export function ErrorBox({ title, error, raisedBy }: { title: string; error: ProblemDetails; raisedBy?: ComponentChildren }) {
  return (
    <section class="error-box" aria-label={title} data-testid="error-box">
      <h3>
        {title}: {error.title ?? error.type ?? 'error'}
        {error.status !== null && <span class="muted"> (status {error.status})</span>}
      </h3>
      <dl class="fields">
        {error.type !== null && (
          <>
            <dt>Type</dt>
            <dd>
              <code>{error.type}</code>
            </dd>
          </>
        )}
        {error.instance !== null && (
          <>
            <dt>Raised by</dt>
            <dd data-testid="raised-by">{raisedBy ?? <code>{error.instance}</code>}</dd>
          </>
        )}
      </dl>
      {error.detail !== null && <pre class="stack">{readableDetail(error.detail)}</pre>}
    </section>
  );
}

/** The same error (a task's error that the run reports as its own): shown once. */
export function sameError(a: ProblemDetails | null, b: ProblemDetails | null): boolean {
  if (a === null || b === null) return false;
  return a.type === b.type && a.title === b.title && a.detail === b.detail && a.status === b.status && a.instance === b.instance;
}

/** A detail that is JSON (runtimes often put a serialized problem there) is indented; text, stack traces included, stays as it is. */
function readableDetail(detail: string): string {
  const parsed = parseJson(detail);
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? JSON.stringify(parsed.value, null, 2) : detail;
}
