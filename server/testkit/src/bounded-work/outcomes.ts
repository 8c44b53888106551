// What a bounded-work test reads of a request (edge-requests.ts): how it ended, how much memory the backend's
// processes took meanwhile, and how the console's page query fared beside it.

/** How a request ended: answered, refused before it ran, stopped at its time, turned away while busy, or failed. */
export type Outcome =
  | { readonly kind: 'answered' }
  | { readonly kind: 'refused'; readonly code: string; readonly message: string }
  | { readonly kind: 'timed-out'; readonly cost: unknown }
  | { readonly kind: 'busy' }
  | { readonly kind: 'failed'; readonly status: number; readonly codes: readonly string[]; readonly message: string };

/** Codes of a request refused before any read: the limits of §1 and the query cost. */
const REFUSALS = new Set(['BAD_USER_INPUT', 'MAX_DEPTH_EXCEEDED', 'MAX_ALIASES_EXCEEDED', 'MAX_TOKENS_EXCEEDED', 'MAX_DIRECTIVES_EXCEEDED', 'REQUEST_ENTITY_TOO_LARGE']);

interface Body {
  readonly errors?: readonly { readonly message: string; readonly extensions?: Readonly<Record<string, unknown>> }[];
}

export async function classify(response: Response): Promise<Outcome> {
  const text = await response.text();
  if (response.status === 413) return { kind: 'refused', code: 'REQUEST_ENTITY_TOO_LARGE', message: text };
  let body: Body;
  try {
    body = JSON.parse(text) as Body;
  } catch {
    return { kind: 'failed', status: response.status, codes: [], message: text.slice(0, 300) };
  }
  const errors = body.errors ?? [];
  const codes = errors.map((e) => String(e.extensions?.['code']));
  if (errors.length === 0 && response.status === 200) return { kind: 'answered' };
  const timeout = errors.find((e) => e.extensions?.['code'] === 'QUERY_TIMEOUT');
  if (timeout !== undefined && codes.every((c) => c === 'QUERY_TIMEOUT')) return { kind: 'timed-out', cost: timeout.extensions?.['cost'] };
  if (codes.length > 0 && codes.every((c) => REFUSALS.has(c))) return { kind: 'refused', code: codes[0] as string, message: errors[0]?.message ?? '' };
  // GRAPHQL_COST_QUEUE_TIMEOUT_MS: it waited for room in the in-flight budget and did not run.
  if (response.status === 503 && codes.every((c) => c === 'SERVICE_UNAVAILABLE') && /GRAPHQL_MAX_COST_IN_FLIGHT/.test(errors[0]?.message ?? '')) return { kind: 'busy' };
  return { kind: 'failed', status: response.status, codes, message: (errors[0]?.message ?? text).slice(0, 300) };
}

/**
 * The private memory of a backend's processes while something runs, sampled every few milliseconds: `processes` lists
 * their memory now (null for one that cannot be read). The peak is the largest any single process held.
 */
export class BackendMemory {
  constructor(private readonly processes: () => Promise<readonly (number | null)[]>) {}

  /** Whether at least one process can be read (a probe that reads nothing would let every bound pass). */
  async readable(): Promise<boolean> {
    return (await this.processes()).some((bytes) => bytes !== null && bytes > 0);
  }

  async during<T>(run: () => Promise<T>): Promise<{ value: T; peak: number }> {
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const bytes of await this.processes()) peak = Math.max(peak, bytes ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    let value: T;
    try {
      value = await run();
    } finally {
      sampling = false;
      await sampler;
    }
    return { value, peak };
  }
}

export interface PageRun {
  readonly latenciesMs: number[];
  /** Pages that did not answer 200 without errors: status and codes. */
  readonly failures: string[];
  /** Readiness checks that answered DOWN. */
  readinessDown: number;
  /** How long `while` ran, from the first page (0 without `while`). */
  whileMs: number;
}

/**
 * Sends `page` one after the other, `count` times, or for as long as `while` runs; with `readiness`, checks readiness
 * between pages.
 */
export async function pageLatencies(
  page: () => Promise<Response>,
  options: { count?: number; while?: Promise<unknown>; readiness?: () => Promise<Response> },
): Promise<PageRun> {
  const run: PageRun = { latenciesMs: [], failures: [], readinessDown: 0, whileMs: 0 };
  const startedAt = performance.now();
  let done = options.while === undefined;
  void options.while?.finally(() => {
    done = true;
    run.whileMs = performance.now() - startedAt;
  });
  for (let i = 0; options.count !== undefined ? i < options.count : !done; i++) {
    const started = performance.now();
    const response = await page();
    const body = (await response.json()) as Body;
    run.latenciesMs.push(performance.now() - started);
    if (response.status !== 200 || (body.errors ?? []).length > 0) run.failures.push(`${response.status} ${(body.errors ?? []).map((e) => e.extensions?.['code']).join(',')}`);
    if (options.readiness !== undefined && (await options.readiness()).status !== 200) run.readinessDown += 1;
  }
  return run;
}

/**
 * The longest a page may wait beside a load and still count as answering through it: a page queued behind the load
 * waits about as long as the load runs, so at most half of it; on a quick load, within a second or ten times the
 * slowest unloaded page of the same run (a busy machine slows both alike).
 */
export function pageWaitBound(unloaded: PageRun, loaded: PageRun): number {
  return Math.max(1000, 10 * Math.max(...unloaded.latenciesMs), loaded.whileMs / 2);
}
