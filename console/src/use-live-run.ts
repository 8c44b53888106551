// The run page's data: the loaded run, replaced by each pushed state while the live stream is up (the newest of the
// two wins: a poll answers only while the stream is down, a push only while it is up).
import { useEffect, useState } from 'preact/hooks';
import { RUN_SUBSCRIPTION } from './api.ts';
import type { Run } from './api.ts';
import { useLive } from './live-status.ts';

export function useLiveRun(id: string, loaded: Run | null): Run | null {
  const [latest, setLatest] = useState<{ id: string; run: Run | null }>({ id, run: loaded });
  useEffect(() => setLatest({ id, run: loaded }), [id, loaded]);
  useLive<{ workflowInstanceChanged: Run }>(`run:${id}`, RUN_SUBSCRIPTION, { filter: { id: { eq: id } } }, (data) => {
    if (data.workflowInstanceChanged.id === id) setLatest({ id, run: data.workflowInstanceChanged });
  });
  return latest.id === id ? latest.run : loaded;
}
