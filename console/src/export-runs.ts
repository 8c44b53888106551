// The runs list's export (GET /export/workflow-instances): the list's filter (statuses included) as the `filter`
// parameter. Without sign-in a plain link downloads it, streamed by the browser straight to a file. With sign-in the
// request needs the session's bearer token, which a link cannot carry: the file is fetched with it, held as a blob
// (memory: the file's size) and saved under the server's file name.
import { signInAgain } from './oidc-client.ts';
import { readSession } from './session.ts';
import { signInSettings } from './sign-in-settings.ts';
import type { Filter } from './filters.ts';

export type ExportFormat = 'csv' | 'jsonl';

export function exportUrl(filter: Filter, format: ExportFormat): string {
  const params = new URLSearchParams({ format });
  if (Object.keys(filter).length > 0) params.set('filter', JSON.stringify(filter));
  return `/export/workflow-instances?${params.toString()}`;
}

/** Fetches the export with the session's token and saves it; rejects with the server's message when it refuses. */
export async function downloadWithSession(url: string, format: ExportFormat): Promise<void> {
  const settings = signInSettings();
  const session = readSession();
  if (settings.mode === 'oidc' && session === null) {
    void signInAgain(settings);
    throw new Error('Your session has ended: signing in again…');
  }
  const response = await fetch(url, { headers: session === null ? {} : { Authorization: `Bearer ${session.accessToken}` } });
  if (response.status === 401 && settings.mode === 'oidc') void signInAgain(settings);
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { errors?: { message: string }[] } | null;
    throw new Error(body?.errors?.[0]?.message ?? `The server answered ${response.status}.`);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `workflow-instances.${format}`;
  const href = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
