// The lists whose filter may need lookups first (lookup-filter.ts: JSON operators beyond equality, durations,
// relations) or whose order is `duration`, and the counts. opensearch-reader.ts sends every other list its own way.
//
// Counts: OpenSearch counts matching documents exactly and cheaply (track_total_hits: true reads the postings, no
// documents), so the value is always the exact count. The API's `exact` flag keeps PostgreSQL's meaning, "counted
// while at most COUNT_EXACT_LIMIT match": above the limit it is false (the value is then still the exact count, not an
// estimate, which the flag allows). Per-status counts are one search: a `filters` aggregation with one bucket per
// status (doc counts of a filters aggregation are exact).
import { DEFAULT_LIST_ORDER, effectiveSortKeys, INSTANCE_STATUSES } from '@workflow-index/core';
import type {
  Count,
  CountOptions,
  InstanceFilter,
  InstanceSortField,
  TaskFilter,
  TaskSortField,
  ListQuery,
  SortKey,
  TaskExecutionRecord,
  WorkflowInstanceRecord,
  WorkflowInstanceStatus,
} from '@workflow-index/core';
import type { NormalizedIndexNames } from '../../normalized-indices.js';
import { instanceSource, taskSource, toInstance, toTask } from '../documents.js';
import type { SortFieldDoc } from '../fields.js';
import { type Query, and, MATCH_NONE, term } from '../query-dsl.js';
import { LookupDeadline } from '../lookup-deadline.js';
import type { Searcher, SearchHit, SearchRequests } from '../search-requests.js';
import { speculativePage } from '../speculative-page.js';
import type { PositionSpans } from '../paged-search.js';
import type { OrderKey } from '../sort-dsl.js';
import { LOOKUP_INSTANCE_SORT, LOOKUP_TASK_SORT } from './lookup-fields.js';
import { lookupFilterDsl, type FilterContext, runsOfTasks, type Target, taskRunBudget } from './lookup-filter.js';
import { everyRunHasTaskStates, taskStatesQuery } from './task-states-filter.js';

export interface LookupReaderOptions {
  readonly requests: SearchRequests;
  readonly names: NormalizedIndexNames;
  /** The indices' index.max_result_window. */
  readonly maxResultWindow: number;
  /** Bound of the runs a `taskExecutions` instance filter resolves (default MAX_TASK_FILTER_RUNS). */
  readonly maxTaskFilterRuns?: number;
  /** Where newest-first pages after a position start (paged-search.ts), shared with the other lists. */
  readonly spans?: PositionSpans;
}

const SERVED: Query = term('placeholder', false);

/** GraphQL Int is 32-bit: a count beyond it is served as the largest Int. */
const MAX_INT = 2_147_483_647;

function orderOf<F extends string>(orderBy: readonly SortKey<F>[], fields: Readonly<Record<F, SortFieldDoc>>): OrderKey[] {
  return effectiveSortKeys<F>(orderBy, DEFAULT_LIST_ORDER as unknown as readonly SortKey<F>[]).map((k) => ({ key: fields[k.field], direction: k.direction }));
}

const countOf = (value: number, exactLimit: number): Count => ({ value: Math.min(value, MAX_INT), exact: value <= exactLimit });

export class LookupReader {
  readonly #requests: SearchRequests;
  readonly #names: NormalizedIndexNames;
  readonly #window: number;
  readonly #context: FilterContext;
  readonly #spans: PositionSpans | undefined;

  constructor(options: LookupReaderOptions) {
    this.#requests = options.requests;
    this.#names = options.names;
    this.#window = options.maxResultWindow;
    this.#spans = options.spans;
    this.#context = {
      requests: options.requests,
      names: options.names,
      served: SERVED,
      ...(options.maxTaskFilterRuns === undefined ? {} : { maxTaskFilterRuns: options.maxTaskFilterRuns }),
    };
  }

  async listInstances(query: ListQuery<InstanceFilter, InstanceSortField>): Promise<WorkflowInstanceRecord[]> {
    if (query.limit <= 0) return [];
    const order = orderOf(query.orderBy, LOOKUP_INSTANCE_SORT);
    const hits = await this.#list(this.#names.workflowInstances, query, (searcher) => this.#served(query.filter, 'instances', searcher), order, instanceSource(query.payloads), 'listInstances');
    return hits.map((h) => toInstance(h._source, query.payloads));
  }

  async listTasks(query: ListQuery<TaskFilter, TaskSortField>): Promise<TaskExecutionRecord[]> {
    if (query.limit <= 0) return [];
    const order = orderOf(query.orderBy, LOOKUP_TASK_SORT);
    const hits = await this.#list(this.#names.taskExecutions, query, (searcher) => this.#served(query.filter, 'tasks', searcher), order, taskSource(query.payloads), 'listTasks');
    return hits.map((h) => toTask(h._source, query.payloads));
  }

  async countInstances(filter: InstanceFilter | null, options: CountOptions): Promise<Count> {
    if (filter?.kind === 'tasks') {
      // Runs by one taskExecutions condition on status (and name): the runs' task states (task-states-filter.ts).
      const states = taskStatesQuery(filter.node);
      if (states !== null && (await everyRunHasTaskStates(this.#context.requests, this.#names.workflowInstances))) {
        return this.#count(this.#names.workflowInstances, and([SERVED, states]), options.exactLimit, 'countInstances');
      }
      // Runs by one taskExecutions condition: a served task's run is served (the task document repeats its run's
      // placeholder flag), so the number of distinct runs of the matching served tasks is the count, without a second
      // search of those ids.
      const taskQuery = await lookupFilterDsl(this.#context, filter.node, 'tasks');
      if (taskQuery === MATCH_NONE) return { value: 0, exact: true };
      return countOf((await runsOfTasks(this.#context, and([SERVED, taskQuery]))).length, options.exactLimit);
    }
    return this.#count(this.#names.workflowInstances, await this.#served(filter, 'instances'), options.exactLimit, 'countInstances');
  }

  async countTasks(filter: TaskFilter | null, options: CountOptions): Promise<Count> {
    return this.#count(this.#names.taskExecutions, await this.#served(filter, 'tasks'), options.exactLimit, 'countTasks');
  }

  async countInstancesByStatus(filter: InstanceFilter | null, options: CountOptions): Promise<Readonly<Record<WorkflowInstanceStatus, Count>>> {
    const query = await this.#served(filter, 'instances');
    const counts = Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, 0])) as Record<WorkflowInstanceStatus, number>;
    if (query !== MATCH_NONE) {
      const filters = Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, term('status', s)]));
      const response = await this.#requests.search(this.#names.workflowInstances, { query, size: 0, aggs: { statuses: { filters: { filters } } } }, 'countInstancesByStatus');
      const buckets = (response.aggregations as { statuses: { buckets: Record<string, { doc_count: number }> } }).statuses.buckets;
      for (const s of INSTANCE_STATUSES) counts[s] = buckets[s]?.doc_count ?? 0;
    }
    return Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, countOf(counts[s], options.exactLimit)])) as Record<WorkflowInstanceStatus, Count>;
  }

  /** The query of a served instance or task filter, lookups resolved (MATCH_NONE when nothing can match): the statistics' search. */
  servedQuery(filter: InstanceFilter | TaskFilter | null, target: Target): Promise<Query> {
    return this.#served(filter, target);
  }

  /** The filter's query restricted to served documents (MATCH_NONE when nothing can match), its lookups by `searcher`. */
  async #served(filter: InstanceFilter | TaskFilter | null, target: Target, searcher: Searcher = this.#requests): Promise<Query> {
    // the filter's lookups share one OPENSEARCH_QUERY_TIMEOUT_MS (a dry run's have no time to share)
    const context = { ...this.#context, requests: searcher === this.#requests ? new LookupDeadline(searcher) : searcher, taskRuns: taskRunBudget(this.#context) };
    return and([SERVED, await lookupFilterDsl(context, filter as Parameters<typeof lookupFilterDsl>[1], target)]);
  }

  async #count(index: string, query: Query, exactLimit: number, what: string): Promise<Count> {
    if (query === MATCH_NONE) return { value: 0, exact: true };
    const response = await this.#requests.search(index, { query, size: 0, track_total_hits: true }, what);
    return countOf(response.hits.total?.value ?? 0, exactLimit);
  }

  /** A page; the filter's checks on the stored text ride along with it (speculative-page.ts). */
  #list(index: string, query: ListQuery<unknown, string>, translate: (searcher: Searcher) => Promise<Query>, order: readonly OrderKey[], source: readonly string[], what: string): Promise<SearchHit[]> {
    return speculativePage(this.#requests, this.#window, translate, {
      index, order, after: query.after?.values ?? null, offset: query.offset, limit: query.limit, source, what, ...(this.#spans === undefined ? {} : { spans: this.#spans }),
    });
  }
}
