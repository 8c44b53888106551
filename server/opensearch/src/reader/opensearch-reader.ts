// The OpenSearch Reader: read-only searches over the normalized indices `workflow-instances` and `task-executions`
// (normalized-indices.ts). Placeholders (`placeholder: true`: no workflow.started yet, and the executions of such an
// instance) are excluded from every query. Filters: filter-dsl.ts; order: sort-dsl.ts; `after`: keyset.ts; pages and
// deep offsets: paged-search.ts. A list whose filter needs lookups (JSON operators beyond equality, durations,
// relations) or whose order is `duration`, and the counts: lookups/lookup-reader.ts.
import type { Client } from '@opensearch-project/opensearch';
import { BackendUnavailableError, DEFAULT_LIST_ORDER, effectiveSortKeys } from '@workflow-index/core';
import type {
  Count,
  CountOptions,
  IngestionStats,
  InstanceFilter,
  InstanceSortField,
  ListQuery,
  PoolStats,
  Reader,
  SimpleFilterNode,
  SortKey,
  TaskExecutionRecord,
  TaskFilter,
  TaskSortField,
  WorkflowEventRecord,
  WorkflowInstanceRecord,
  WorkflowInstanceStatus,
} from '@workflow-index/core';
import { type NormalizedIndexNames, normalizedIndexNames } from '../normalized-indices.js';
import { rawIndexPattern, TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX } from '../raw-index-templates.js';
import { instanceSource, taskSource, toInstance, toTask } from './documents.js';
import { type FilterFields, INSTANCE_FIELDS, INSTANCE_SORT, type SortFieldDoc, TASK_FIELDS, TASK_SORT, TASKS_OF_INSTANCE_ORDER } from './fields.js';
import { eventsOfInstances } from './event-history.js';
import { filterDsl } from './filter-dsl.js';
import { resolveJsonFallback } from './json-fallback.js';
import { resolveLongStrings } from './long-detail-filter.js';
import { afterDsl, positionOf, type PositionValues } from './keyset.js';
import { type Query, and, not, term, terms } from './query-dsl.js';
import { PositionSpans } from './paged-search.js';
import { type Searcher, type SearchHit, SearchRequests } from './search-requests.js';
import { speculativePage } from './speculative-page.js';
import { type OrderKey, sortDsl } from './sort-dsl.js';
import { LookupReader } from './lookups/lookup-reader.js';
import { asSimpleFilter, asSimpleOrder } from './simple-query.js';
import { OPENSEARCH_WORK_PRICES } from './opensearch-work-prices.js';
import { OpenSearchStats } from './stats/opensearch-stats.js';
import type { ErrorCountRecord, StatsBucketRecord, StatsQuery, TaskFailureCountRecord, TopErrorsQuery, TopFailingTasksQuery } from '@workflow-index/core';

export interface OpenSearchReaderOptions {
  readonly client: Client;
  /** Prefix of every index name (tests keep their indices apart with it); production: ''. */
  readonly prefix?: string;
  /** Timeout of each search (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** The indices' index.max_result_window (default 10,000, OpenSearch's default). */
  readonly maxResultWindow?: number;
  /** Whether close() closes the client (default true). */
  readonly ownsClient?: boolean;
  /** Bound of the runs a filter's `taskExecutions` conditions resolve (lookups/lookup-filter.ts; tests lower it). */
  readonly maxTaskFilterRuns?: number;
  /** The time span (µs) a page after a time position is first searched in, beside the position (paged-search.ts; default 1 h, tests lower it). */
  readonly positionSpanMicros?: bigint;
  /** Finished runs a workflowStats request may collect in the node before it ranks them instead (stats/opensearch-stats.ts; tests lower it). */
  readonly statsCollectLimit?: number;
  /** Composite buckets per search of workflowStats (stats/opensearch-stats.ts; tests lower it to page). */
  readonly statsPageSize?: number;
}

const SERVED: Query = term('placeholder', false);

export class OpenSearchReader implements Reader {
  readonly backendName = 'opensearch';
  readonly workPrices = OPENSEARCH_WORK_PRICES;
  readonly names: NormalizedIndexNames;
  readonly #client: Client;
  readonly #prefix: string;
  readonly #requests: SearchRequests;
  readonly #window: number;
  readonly #ownsClient: boolean;
  readonly #spans: PositionSpans;
  readonly #lookups: LookupReader;
  readonly #stats: OpenSearchStats;
  #closed: Promise<void> | undefined;

  constructor(options: OpenSearchReaderOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? '';
    this.names = normalizedIndexNames(this.#prefix);
    this.#requests = new SearchRequests(options.client, options.requestTimeoutMs ?? 10_000);
    this.#window = options.maxResultWindow ?? 10_000;
    this.#ownsClient = options.ownsClient ?? true;
    this.#spans = new PositionSpans(options.positionSpanMicros);
    this.#lookups = new LookupReader({
      requests: this.#requests,
      spans: this.#spans,
      names: this.names,
      maxResultWindow: this.#window,
      ...(options.maxTaskFilterRuns === undefined ? {} : { maxTaskFilterRuns: options.maxTaskFilterRuns }),
    });
    this.#stats = new OpenSearchStats({
      requests: this.#requests, names: this.names, served: (filter, target) => this.#lookups.servedQuery(filter, target), maxResultWindow: this.#window,
      ...(options.statsCollectLimit === undefined ? {} : { collectLimit: options.statsCollectLimit }),
      ...(options.statsPageSize === undefined ? {} : { pageSize: options.statsPageSize }),
    });
  }

  workflowStats(query: StatsQuery): Promise<StatsBucketRecord[]> {
    return this.#stats.workflowStats(query);
  }

  topErrors(query: TopErrorsQuery): Promise<ErrorCountRecord[]> {
    return this.#stats.topErrors(query);
  }

  topFailingTasks(query: TopFailingTasksQuery): Promise<TaskFailureCountRecord[]> {
    return this.#stats.topFailingTasks(query);
  }

  async getInstance(id: string, options: { payloads: boolean; tasks?: { payloads: boolean } }): Promise<WorkflowInstanceRecord | null> {
    const instanceSearch = {
      index: this.names.workflowInstances,
      body: { query: and([SERVED, term('id', id)]), size: 1, _source: instanceSource(options.payloads) },
    };
    if (options.tasks === undefined) {
      const response = await this.#requests.search(instanceSearch.index, instanceSearch.body, 'getInstance');
      const hit = response.hits.hits[0];
      return hit === undefined ? null : toInstance(hit._source, options.payloads);
    }
    // The run and its executions in one round trip; more executions than a window are read after it.
    const taskPayloads = options.tasks.payloads;
    const [instances, tasks] = await this.#requests.msearch(
      [instanceSearch, { index: this.names.taskExecutions, body: this.#tasksOfInstancesBody([id], taskPayloads) }],
      'getInstance',
    );
    const hit = instances!.hits.hits[0];
    if (hit === undefined) return null;
    const hits = await this.#continueTasks([id], taskPayloads, tasks!.hits.hits);
    return { ...toInstance(hit._source, options.payloads), tasks: hits.map((h) => toTask(h._source, taskPayloads)) };
  }

  async listInstances(query: ListQuery<InstanceFilter, InstanceSortField>): Promise<WorkflowInstanceRecord[]> {
    const filter = asSimpleFilter(query.filter);
    const orderBy = asSimpleOrder(query.orderBy);
    if (filter === undefined || orderBy === undefined) return this.#lookups.listInstances(query);
    const order = orderOf(orderBy, INSTANCE_SORT);
    const hits = await this.#list(this.names.workflowInstances, { ...query, filter }, INSTANCE_FIELDS, order, instanceSource(query.payloads), 'listInstances');
    return hits.map((h) => toInstance(h._source, query.payloads));
  }

  async getTask(id: string, options: { payloads: boolean }): Promise<TaskExecutionRecord | null> {
    const response = await this.#requests.search(
      this.names.taskExecutions,
      { query: and([SERVED, term('id', id)]), size: 1, _source: taskSource(options.payloads) },
      'getTask',
    );
    const hit = response.hits.hits[0];
    return hit === undefined ? null : toTask(hit._source, options.payloads);
  }

  async listTasks(query: ListQuery<TaskFilter, TaskSortField>): Promise<TaskExecutionRecord[]> {
    const filter = asSimpleFilter(query.filter);
    const orderBy = asSimpleOrder(query.orderBy);
    if (filter === undefined || orderBy === undefined) return this.#lookups.listTasks(query);
    const order = orderOf(orderBy, TASK_SORT);
    const hits = await this.#list(this.names.taskExecutions, { ...query, filter }, TASK_FIELDS, order, taskSource(query.payloads), 'listTasks');
    return hits.map((h) => toTask(h._source, query.payloads));
  }

  countInstances(filter: InstanceFilter | null, options: CountOptions): Promise<Count> {
    return this.#lookups.countInstances(filter, options);
  }

  countTasks(filter: TaskFilter | null, options: CountOptions): Promise<Count> {
    return this.#lookups.countTasks(filter, options);
  }

  countInstancesByStatus(filter: InstanceFilter | null, options: CountOptions): Promise<Readonly<Record<WorkflowInstanceStatus, Count>>> {
    return this.#lookups.countInstancesByStatus(filter, options);
  }

  async tasksOfInstances(instanceIds: readonly string[], options: { payloads: boolean }): Promise<Map<string, TaskExecutionRecord[]>> {
    const result = new Map<string, TaskExecutionRecord[]>(instanceIds.map((id) => [id, []]));
    if (instanceIds.length === 0) return result;
    const ids = [...new Set(instanceIds)];
    // One search for the whole page, ordered by instance then chronologically; a page with more executions than a
    // window continues after the last one read.
    const first = await this.#requests.search(this.names.taskExecutions, this.#tasksOfInstancesBody(ids, options.payloads), 'tasksOfInstances');
    const hits = await this.#continueTasks(ids, options.payloads, first.hits.hits);
    for (const hit of hits) result.get(String(hit._source['instance_id']))?.push(toTask(hit._source, options.payloads));
    return result;
  }

  eventsOfInstances(instanceIds: readonly string[], options: { payloads: boolean }): Promise<Map<string, WorkflowEventRecord[]>> {
    return eventsOfInstances({ requests: this.#requests, names: this.names }, instanceIds, options);
  }

  #tasksOfInstancesBody(ids: readonly string[], payloads: boolean, after: PositionValues | null = null) {
    const query = and([SERVED, terms('instance_id', ids), after === null ? and([]) : afterDsl(TASKS_OF_INSTANCE_ORDER, after)]);
    return { query, size: this.#window, sort: sortDsl(TASKS_OF_INSTANCE_ORDER), _source: taskSource(payloads) };
  }

  async #continueTasks(ids: readonly string[], payloads: boolean, firstHits: readonly SearchHit[]): Promise<SearchHit[]> {
    const hits = [...firstHits];
    let last = firstHits;
    while (last.length === this.#window) {
      const position = positionOf(TASKS_OF_INSTANCE_ORDER, last[last.length - 1]!._source);
      const next = await this.#requests.search(this.names.taskExecutions, this.#tasksOfInstancesBody(ids, payloads, position), 'tasksOfInstances');
      last = next.hits.hits;
      hits.push(...last);
    }
    return hits;
  }

  async #list<F, S extends string, T extends string>(
    index: string,
    query: ListQuery<F, string>,
    fields: FilterFields<S, T>,
    order: readonly OrderKey[],
    source: readonly string[],
    what: string,
  ): Promise<SearchHit[]> {
    if (query.limit <= 0) return [];
    const filter = query.filter as SimpleFilterNode<S, T> | null;
    // The checks of JSON filters and long details ride along with the page (speculative-page.ts).
    const translate = async (searcher: Searcher): Promise<Query> => {
      const fallback = await resolveJsonFallback(searcher, index, filter, fields, SERVED);
      const longStrings = await resolveLongStrings(searcher, index, filter, fields, SERVED);
      return and([SERVED, filterDsl(filter, fields, fallback, longStrings)]);
    };
    return speculativePage(this.#requests, this.#window, translate, {
      index, order, after: query.after?.values ?? null, offset: query.offset, limit: query.limit, source, what, spans: this.#spans,
    });
  }

  async ping(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BackendUnavailableError(`OpenSearch did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    // A search of both normalized indices: the node answers, and the indices the server reads exist and are readable.
    const attempt = this.#requests.search(
      `${this.names.workflowInstances},${this.names.taskExecutions}`,
      { query: { match_none: {} }, size: 0 },
      'ping',
      timeoutMs,
    );
    attempt.catch(() => undefined); // a late failure after the deadline is not an unhandled rejection
    try {
      await Promise.race([attempt, deadline]);
    } catch (error) {
      throw error instanceof BackendUnavailableError ? error : new BackendUnavailableError(`OpenSearch ping failed: ${(error as Error).message}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  async ingestionStats(): Promise<IngestionStats> {
    const [instances, tasks] = await this.#requests.msearch(
      [
        {
          index: this.names.workflowInstances,
          body: {
            query: { match_all: {} },
            size: 1,
            sort: [{ last_update_us: { order: 'desc', missing: '_last' } }],
            _source: ['last_update'],
            aggs: { placeholders: { filter: term('placeholder', true) }, served: { filter: SERVED } },
          },
        },
        // Superseded markers (normalizer-recompute.ts) are no executions.
        { index: this.names.taskExecutions, body: { query: not(term('superseded', true)), size: 0, track_total_hits: true } },
      ],
      'ingestionStats',
    );
    // Raw and ingest-error counts come from index stats, so the server needs no read permission on raw events.
    const [workflowRaw, taskRaw, ingestErrors] = await Promise.all([
      this.#requests.docCount(rawIndexPattern(WORKFLOW_RAW_PREFIX, this.#prefix), 'ingestionStats'),
      this.#requests.docCount(rawIndexPattern(TASK_RAW_PREFIX, this.#prefix), 'ingestionStats'),
      this.#requests.docCount(this.names.ingestErrors, 'ingestionStats'),
    ]);
    const aggs = instances!.aggregations as { placeholders: { doc_count: number }; served: { doc_count: number } };
    const newest = instances!.hits.hits[0]?._source['last_update'];
    return {
      rawEvents: { workflow: workflowRaw, task: taskRaw },
      ingestErrors,
      newestEventTime: typeof newest === 'string' ? newest : null,
      placeholderInstances: aggs.placeholders.doc_count,
      instances: aggs.served.doc_count,
      taskExecutions: tasks!.hits.total?.value ?? 0,
    };
  }

  poolStats(): PoolStats | null {
    return null;
  }

  close(): Promise<void> {
    this.#closed ??= this.#ownsClient ? this.#client.close() : Promise.resolve();
    return this.#closed;
  }
}

function orderOf<F extends string>(orderBy: readonly SortKey<F>[], fields: Readonly<Record<F, SortFieldDoc>>): OrderKey[] {
  return effectiveSortKeys<F>(orderBy, DEFAULT_LIST_ORDER as unknown as readonly SortKey<F>[]).map((k) => ({ key: fields[k.field], direction: k.direction }));
}

export function createOpenSearchReader(options: OpenSearchReaderOptions): OpenSearchReader {
  return new OpenSearchReader(options);
}
