// The re-normalization walk job: between cycles, when the recorded rules version is older than this release's, it
// re-normalizes every instance of the event store, a bounded slice at a time (normalizer-renormalize.ts says why and
// how it is safe beside the cycles; normalizer-renormalize-narrowing.ts what a failing page does).
import { LeaseLostError } from './normalizer-lease.js';
import type { NormalizerContext } from './normalizer-context.js';
import { CHANGED_AT_FIELD, normalizerErrorDocument, recomputeStoredInstances, sendBulk } from './normalizer-recompute.js';
import { type Narrowing, PageNarrowing, RENORMALIZE_SKIP_AFTER_FAILURES } from './normalizer-renormalize-narrowing.js';
import {
  MISSING_RULES_VERSION, type RenormalizationStatus, type RulesState, type StoredInstance, estimatedStoredInstances, eventStoreIsEmpty, pageWithinBudget, readRulesState,
  renormalizationFailureKind, storedInstancePage, writeRulesState,
} from './normalizer-renormalize.js';
import type { NormalizerStatusReport } from './normalizer-status.js';
import { RULES_VERSION } from './normalizer-rules-version.js';
import { openSearchErrorText } from './opensearch-error-text.js';

export interface RenormalizeResult {
  /** Instances of the event store walked (recomputed, or skipped as deleted by retention) by this call. */
  readonly instances: number;
  /** Whether the documents now have this release's rules version. */
  readonly done: boolean;
  readonly afterInstanceId: string | null;
}

export interface WalkSettings {
  /** Time a slice may take (at least one page is done). */
  readonly sliceMs: number;
  /** Instances per page. */
  readonly pageSize: number;
  /** Stored events per page (a page ends before the instance that would exceed it; at least one instance). */
  readonly eventBudget: number;
}

type NextRules = Omit<RulesState, 'seqNo' | 'primaryTerm'>;

/** The instances listed after the walk's position and not yet in a page: a listing of `pageSize` ids is cut into
 * pages by the event budget (and a narrowing), the rest kept for the next page of the slice. */
interface Listing {
  instances: StoredInstance[];
  toEnd: boolean;
}

export class RenormalizationWalk {
  private readonly narrowing = new PageNarrowing();
  /** The rules state as last read or written by this process; undefined: read it again. */
  private rules: RulesState | undefined;
  private published: RenormalizationStatus | undefined;
  private instancesEstimated: number | null = null;
  /** Whether the mappings were seen to hold the fields this release writes (requireRulesFields). */
  private rulesFieldsPresent = false;

  constructor(
    private readonly context: NormalizerContext,
    private readonly settings: WalkSettings,
    private readonly report: NormalizerStatusReport,
  ) {
    context.metrics.rulesVersion.set({ kind: 'release' }, RULES_VERSION);
  }

  /** What the status document says about the rules and the walk; undefined before the first slice. */
  get renormalizationStatus(): RenormalizationStatus | undefined {
    return this.published;
  }

  /** Whether the rules state was read (or written) since this process started or a slice last failed. */
  get rulesKnown(): boolean {
    return this.rules !== undefined;
  }

  /** Whether the documents' rules are known to be older than this release's (not after a failed slice). */
  get pending(): boolean {
    return this.rules !== undefined && this.rules.rulesVersion !== RULES_VERSION;
  }

  /**
   * Before this process's first cycle: an event store without any event (a fresh installation, or one that never
   * normalized anything) has nothing to re-normalize, so this release's rules version is recorded at once.
   */
  async recordRulesIfFresh(): Promise<void> {
    const { client, names } = this.context;
    this.rules ??= await readRulesState(client, names.normalizerState);
    if (this.rules.rulesVersion !== MISSING_RULES_VERSION || this.rules.seqNo !== undefined) return;
    if (!(await eventStoreIsEmpty(client, names.eventStore))) return;
    const now = Date.now();
    await this.store({ rulesVersion: RULES_VERSION, targetVersion: null, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: now, finishedAtMs: now });
  }

  /**
   * One slice, when the documents' rules version is older than this release's: pages of stored instances recomputed
   * until `budgetMs` has passed (at least one page), the progress stored after each. A page that fails ends the slice
   * with its error (pageFailed). The caller holds every slot; cycles run between slices, so new events are normalized
   * while it runs.
   */
  async slice(budgetMs = this.settings.sliceMs): Promise<RenormalizeResult> {
    const started = Date.now();
    let state = await this.reconciledRules(started);
    if (state.rulesVersion >= RULES_VERSION) {
      this.published = this.statusOf(state);
      return { instances: 0, done: true, afterInstanceId: null };
    }
    if (state.targetVersion !== RULES_VERSION) {
      // None started, or one toward other rules (the pages done follow those): from the first instance.
      state = await this.store({ rulesVersion: state.rulesVersion, targetVersion: RULES_VERSION, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: started, finishedAtMs: null });
      this.instancesEstimated = null;
    }
    await this.requireRulesFields();
    this.instancesEstimated ??= await estimatedStoredInstances(this.context.client, this.context.names.eventStore);
    // A page reads stored events and existing executions by search: what the cycle before wrote must count, or a
    // page could recompute an instance without its newest event (same version at the same millisecond).
    await this.context.visibility.ensureSearchable();
    return this.walk(state, started, budgetMs);
  }

  /** A slice after each cycle while the documents' rules are older; a failure is reported and the slice retried
   * after the next cycle, never failing the cycle (new events keep being normalized). */
  async sliceIfPending(): Promise<void> {
    try {
      const result = await this.slice();
      if (result.instances > 0 && !result.done) this.context.logger.info('re-normalizing', { instances: result.instances, after: result.afterInstanceId });
    } catch (error) {
      this.context.metrics.renormalizationFailures.inc();
      const message = openSearchErrorText(error);
      this.rules = undefined; // re-read: another normalizer may have moved it
      const previous = this.published;
      this.published = previous === undefined
        ? { rules_version: null, current_version: RULES_VERSION, state: 'unknown', after_instance_id: null, instances_done: 0, instances_skipped: 0, instances_estimated: null, started_at_ms: null, finished_at_ms: null, last_error: message }
        : { ...previous, last_error: message };
      this.context.logger.warn('re-normalization failed; retrying after the next cycle', { error: message });
    }
  }

  /**
   * The rules state, read at every slice (one get): while this process did not hold the lease, another release may
   * have moved it (recorded a newer version, or walked part of the way toward one), which this process must see to
   * lower the version or drop that walk's progress.
   */
  private async reconciledRules(started: number): Promise<RulesState> {
    let state = (this.rules = await readRulesState(this.context.client, this.context.names.normalizerState));
    this.context.metrics.rulesVersion.set({ kind: 'documents' }, state.rulesVersion);
    if (state.rulesVersion > RULES_VERSION) {
      // Rolled back: this release writes the runs it touches in its older shape, so the recorded version (what every
      // document has at least) comes down to its own, and the next upgrade re-normalizes them again.
      state = await this.store({ rulesVersion: RULES_VERSION, targetVersion: null, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: started, finishedAtMs: started });
    }
    if (state.rulesVersion >= RULES_VERSION && state.targetVersion !== null) {
      // A walk toward newer rules was under way when this release was rolled back to: this release rewrites the runs
      // it touches in its own shape, including runs that walk had already passed, so its progress is dropped and the
      // next upgrade walks every run again.
      state = await this.store({ rulesVersion: state.rulesVersion, targetVersion: null, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: state.startedAtMs, finishedAtMs: state.finishedAtMs });
    }
    return state;
  }

  private async walk(from: RulesState, started: number, budgetMs: number): Promise<RenormalizeResult> {
    let state = from;
    let walked = 0;
    const listing: Listing = { instances: [], toEnd: false };
    for (;;) {
      if (listing.instances.length === 0 && !listing.toEnd) {
        listing.instances = await storedInstancePage(this.context.client, this.context.names.eventStore, state.afterInstanceId, this.settings.pageSize);
        listing.toEnd = listing.instances.length < this.settings.pageSize;
      }
      const narrowing = this.narrowing.at(state);
      const page = pageWithinBudget(listing.instances, this.settings.eventBudget, narrowing?.limit ?? this.settings.pageSize);
      const ids = page.map((p) => p.id);
      if (ids.length > 0) await this.recomputePage(state, ids);
      walked += ids.length;
      listing.instances = listing.instances.slice(ids.length);
      const last = listing.toEnd && listing.instances.length === 0;
      state = await this.passed(state, ids, last, narrowing);
      if (last) return { instances: walked, done: true, afterInstanceId: null };
      if (Date.now() - started >= budgetMs) return { instances: walked, done: false, afterInstanceId: state.afterInstanceId };
    }
  }

  private async recomputePage(state: RulesState, ids: readonly string[]): Promise<void> {
    const { client, names, refresh, fence, visibility, metrics } = this.context;
    let result;
    try {
      result = await recomputeStoredInstances(client, names, ids, { refresh, fence });
    } catch (error) {
      visibility.wrote();
      if (error instanceof LeaseLostError) throw error;
      return await this.pageFailed(state, ids, error);
    }
    visibility.wrote();
    metrics.renormalizedInstances.inc(ids.length);
    metrics.rejectedEvents.inc(result.rejectedEvents);
    metrics.deletedDocuments.inc({ transform: 'task-execution-transform' }, result.deletedExecutions);
    this.report.rejected(result.rejectedEvents);
  }

  /** Stores the progress after a page (the end of the walk after the last one). */
  private async passed(state: RulesState, ids: readonly string[], last: boolean, narrowing: Narrowing | undefined): Promise<RulesState> {
    const done = state.instancesDone + ids.length;
    const next = last
      ? await this.store({ rulesVersion: RULES_VERSION, targetVersion: null, afterInstanceId: null, instancesDone: done, instancesSkipped: state.instancesSkipped, skipsInARow: 0, startedAtMs: state.startedAtMs, finishedAtMs: Date.now() })
      : await this.store({ ...state, afterInstanceId: ids[ids.length - 1]!, instancesDone: done, skipsInARow: 0 });
    this.narrowing.passed(narrowing, ids.length, next.afterInstanceId);
    this.published = this.statusOf(next);
    if (last) {
      this.narrowing.clear();
      this.context.logger.info('re-normalization finished', { rulesVersion: RULES_VERSION, instances: done, skipped: next.instancesSkipped });
    }
    return next;
  }

  /**
   * A page failed: the slice ends with the failure (counted and shown by sliceIfPending; the next cycle runs first),
   * after the narrowing decided what follows (normalizer-renormalize-narrowing.ts). A single instance it gives up on
   * is recorded in the ingest errors and walked past.
   */
  private async pageFailed(state: RulesState, ids: readonly string[], error: unknown): Promise<never> {
    const text = openSearchErrorText(error);
    const verdict = this.narrowing.failed(state, ids, renormalizationFailureKind(error));
    if ('retry' in verdict) throw new Error(`${verdict.retry}: ${text}`);
    const id = verdict.skip;
    const record = normalizerErrorDocument(id, `re-normalization failed for instance ${id} (${RENORMALIZE_SKIP_AFTER_FAILURES} times in a row; skipped, its documents stay as an earlier release wrote them): ${text}`, Date.now());
    const refused = await sendBulk(this.context.client, [{ action: { index: { _index: this.context.names.ingestErrors, _id: `normalizer/${id}` } }, document: record }], this.context.refresh);
    if (refused.length > 0) throw new Error(`re-normalizing instance ${id} failed, and recording it as skipped failed (${refused[0]!.reason}): ${text}`);
    const next = await this.store({ ...state, afterInstanceId: id, instancesDone: state.instancesDone + 1, instancesSkipped: state.instancesSkipped + 1, skipsInARow: state.skipsInARow + 1 });
    this.context.metrics.renormalizationSkippedInstances.inc();
    // The rest of the failing range goes in whole pages again: another failing instance there is narrowed anew.
    this.narrowing.clear();
    this.published = this.statusOf(next);
    this.context.logger.warn('re-normalization skipped an instance', { instanceId: id, error: text });
    throw new Error(`re-normalization skipped instance ${id} after ${RENORMALIZE_SKIP_AFTER_FAILURES} failures in a row (recorded in the ingest errors as normalizer/${id}): ${text}`);
  }

  private async store(next: NextRules): Promise<RulesState> {
    const written = await writeRulesState(this.context.client, this.context.names.normalizerState, this.rules!, next);
    if (written === undefined) {
      this.rules = undefined;
      throw new LeaseLostError('the rules state was written by another normalizer');
    }
    this.rules = written;
    this.context.metrics.rulesVersion.set({ kind: 'documents' }, written.rulesVersion);
    return written;
  }

  /**
   * The fields this release's documents need must be in the indices' mappings before the walk writes them: a
   * normalizer whose user may not change mappings relies on `init-job opensearch-setup` for that, and a walk started
   * before it would have every new document refused (recorded as ingest errors) and count the runs as done. So the
   * slice fails, with a message saying what to do, and is retried after the next cycle. (Field capabilities come with
   * the `read` permission; a user refused them skips the check.)
   */
  private async requireRulesFields(): Promise<void> {
    if (this.rulesFieldsPresent) return; // mappings only grow: once there, the fields stay
    const { client, names } = this.context;
    const needed: Record<string, string[]> = { [names.workflowInstances]: ['task_states', 'task_states_complete', CHANGED_AT_FIELD], [names.taskExecutions]: ['superseded'] };
    const missing: string[] = [];
    for (const [index, fields] of Object.entries(needed)) {
      const response = await client.transport.request({ method: 'GET', path: `/${index}/_field_caps`, querystring: { fields: fields.join(',') } }, { ignore: [403] });
      if (response.statusCode === 403) return;
      const found = (response.body as { fields?: Record<string, unknown> }).fields ?? {};
      missing.push(...fields.filter((f) => found[f] === undefined).map((f) => `${index}.${f}`));
    }
    this.rulesFieldsPresent = missing.length === 0;
    if (missing.length > 0) throw new Error(`the mappings lack ${missing.join(', ')}: run \`init-job opensearch-setup\` of this release (the normalizer's user may not change mappings); the re-normalization waits for it`);
  }

  private statusOf(state: RulesState): RenormalizationStatus {
    const running = state.rulesVersion < RULES_VERSION;
    return {
      rules_version: state.rulesVersion,
      current_version: RULES_VERSION,
      state: running ? 'running' : 'done',
      after_instance_id: state.afterInstanceId,
      instances_done: state.instancesDone,
      instances_skipped: state.instancesSkipped,
      instances_estimated: running ? this.instancesEstimated : null,
      started_at_ms: state.startedAtMs,
      finished_at_ms: state.finishedAtMs,
      last_error: null,
    };
  }
}
