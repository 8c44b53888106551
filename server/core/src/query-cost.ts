// The cost of an operation: how many rows it may read, known before anything runs. Armor's depth and
// alias limits bound the shape of a document but not its reads (30 aliases × limit 1000 × their task
// lists is a legal shape that exhausts the database pool), so every request is priced against a budget.
import { Kind } from 'graphql';
import type { DocumentNode, FieldNode, FragmentDefinitionNode, GraphQLField, GraphQLOutputType, GraphQLSchema, OperationDefinitionNode, SelectionSetNode, ValueNode } from 'graphql';
import type { CoreConfig } from './config.js';
import { countCostOf, DEFAULT_COUNT_EXACT_LIMIT } from './count-limit.js';
import { fragmentsOf } from './document-operations.js';
import { filterWork, type WorkPrices } from './filter-work.js';
import { graphql } from './graphql-runtime.js';
import { INSTANCE_STATUSES } from './reader.js';
import { STATS_FIELDS, statsFieldRows } from './stats-cost.js';

const { getNamedType, getNullableType, isInputObjectType, isListType, isObjectType, valueFromASTUntyped } = graphql;

/** Object types whose values are rows the backend reads. */
const ROW_TYPES = new Set(['WorkflowInstance', 'TaskExecution', 'WorkflowEvent']);
/**
 * Rows an `offset` skips are read but neither projected for the answer, resolved nor sent: every this many of them
 * count one row. Measured at 100,000 runs on PostgreSQL: a skipped row of the oldest-first page cost about 0.7 µs of
 * the database, a served row of a page about 15 µs end to end. OpenSearch skips 10,000 rows per search
 * (docs/opensearch.md). Unpriced, `offset: 2000000000` cost what `offset: 0` cost, and read the whole table.
 */
export const OFFSET_ROWS_PER_COST = 10;
/** Types whose values are counts, and how many bounded counts one value takes (one per status). */
const COUNT_TYPES: ReadonlyMap<string, number> = new Map([
  ['Count', 1],
  ['WorkflowInstanceStatusCount', INSTANCE_STATUSES.length],
]);

export type CostSettings = Pick<CoreConfig['graphql'], 'defaultLimit' | 'maxLimit' | 'costTasksPerInstance'> & {
  /** COUNT_EXACT_LIMIT (default 10000): a count costs countCostOf(it). */
  readonly countExactLimit?: number;
  /** What the backend's work costs (Reader.workPrices); without it only rows are priced. */
  readonly prices?: WorkPrices;
};

export interface FieldCost {
  /** Response key (alias or field name) of a root field. */
  readonly key: string;
  readonly cost: number;
  /** The part of `cost` that is the backend's work beside the rows (its statement and filter); absent when none. */
  readonly work?: number;
}

export interface OperationCost {
  readonly total: number;
  /** Root fields that read rows, most expensive first. */
  readonly fields: readonly FieldCost[];
}

type Variables = Readonly<Record<string, unknown>> | null | undefined;

/**
 * Potential rows of the selected operation: a list with a `limit` counts its effective limit (and the rows its
 * `offset` skips, OFFSET_ROWS_PER_COST of them per row), a list
 * without one (an instance's `taskExecutions`, `getTaskExecutionsByWorkflowInstance`) counts
 * `costTasksPerInstance`, a single row counts 1; rows nested in a list count once per row of that list.
 * Fields are merged by response key as execution merges them; @skip/@include are ignored (counted).
 * A limit that the resolver will reject (negative, above the maximum, not an integer) reads nothing.
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Variables, settings: CostSettings): OperationCost {
  const operation = graphql.getOperationAST(document, operationName ?? undefined);
  const root = operation === null || operation === undefined ? undefined : schema.getRootType(operation.operation);
  if (operation === null || operation === undefined || root === null || root === undefined) return { total: 0, fields: [] };
  const pricing = new Pricing(fragmentsOf(document), operation, variables ?? {}, settings);
  const fields: FieldCost[] = [];
  for (const [key, nodes] of pricing.collect([operation.selectionSet])) {
    const { rows, work } = pricing.rootFieldCost(root.getFields(), nodes);
    if (rows > 0) fields.push(work > 0 ? { key, cost: rows + work, work } : { key, cost: rows });
  }
  fields.sort((a, b) => b.cost - a.cost);
  return { total: fields.reduce((sum, f) => sum + f.cost, 0), fields };
}

class Pricing {
  constructor(
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    private readonly operation: OperationDefinitionNode,
    private readonly variables: Readonly<Record<string, unknown>>,
    private readonly settings: CostSettings,
  ) {}

  /** Field nodes by response key, through fragment spreads and inline fragments (a spread once per key path). */
  collect(selectionSets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
    const out = new Map<string, FieldNode[]>();
    const seen = new Set<string>();
    const pending = [...selectionSets];
    for (let set = pending.shift(); set !== undefined; set = pending.shift()) {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          const list = out.get(key);
          if (list === undefined) out.set(key, [selection]);
          else list.push(selection);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          pending.push(selection.selectionSet);
        } else {
          const name = selection.name.value;
          const fragment = this.fragments.get(name);
          if (fragment !== undefined && !seen.has(name)) {
            seen.add(name);
            pending.push(fragment.selectionSet);
          }
        }
      }
    }
    return out;
  }

  /**
   * A root field's rows, and with prices the work of its own statement: one per field that reads (every alias is
   * one), and its filter's work (filter-work.ts) once per statement the field runs (a count per status counts each).
   */
  rootFieldCost(fields: Readonly<Record<string, GraphQLField<unknown, unknown>>>, nodes: readonly FieldNode[]): { rows: number; work: number } {
    const rows = this.fieldCost(fields, nodes);
    const prices = this.settings.prices;
    const first = nodes[0];
    const definition = first === undefined ? undefined : fields[first.name.value];
    if (rows === 0 || prices === undefined || first === undefined || definition === undefined) return { rows, work: 0 };
    const filterType = definition.args.find((a) => a.name === 'filter')?.type;
    const filterNamed = filterType === undefined ? undefined : getNamedType(filterType);
    const statements = COUNT_TYPES.get(getNamedType(definition.type).name) ?? 1;
    const filter = filterNamed !== undefined && isInputObjectType(filterNamed) ? filterWork(filterNamed, this.argumentValue(first, 'filter'), prices) : 0;
    return { rows, work: Math.ceil(prices.statement + statements * filter) };
  }

  fieldCost(fields: Readonly<Record<string, GraphQLField<unknown, unknown>>>, nodes: readonly FieldNode[]): number {
    const first = nodes[0];
    if (first === undefined) return 0;
    const definition = fields[first.name.value];
    if (definition === undefined) return 0;
    const named = getNamedType(definition.type);
    // A count reads at most COUNT_EXACT_LIMIT + 1 index entries per status it counts, whatever its selection.
    const counts = COUNT_TYPES.get(named.name);
    if (counts !== undefined) return counts * countCostOf(this.settings.countExactLimit ?? DEFAULT_COUNT_EXACT_LIMIT);
    if (STATS_FIELDS.has(definition.name)) return statsFieldRows(definition.name, (name) => this.argumentValue(first, name), countCostOf(this.settings.countExactLimit ?? DEFAULT_COUNT_EXACT_LIMIT));
    if (!isObjectType(named) || !ROW_TYPES.has(named.name)) return 0;
    const rows = this.rowCount(definition.type, definition, first);
    if (rows === 0) return 0;
    const childSets = nodes.flatMap((n) => (n.selectionSet === undefined ? [] : [n.selectionSet]));
    let perRow = 0;
    for (const childNodes of this.collect(childSets).values()) perRow += this.fieldCost(named.getFields(), childNodes);
    return rows * (1 + perRow) + this.skippedCost(definition, first);
  }

  /** What the rows an `offset` skips cost (a limit of 0 reads nothing; an offset the resolver rejects neither). */
  private skippedCost(definition: GraphQLField<unknown, unknown>, node: FieldNode): number {
    if (!definition.args.some((a) => a.name === 'offset')) return 0;
    const offset = this.argument(node, 'offset');
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset <= 0) return 0;
    return Math.ceil(offset / OFFSET_ROWS_PER_COST);
  }

  private rowCount(type: GraphQLOutputType, definition: GraphQLField<unknown, unknown>, node: FieldNode): number {
    if (!isListType(getNullableType(type))) return 1;
    if (!definition.args.some((a) => a.name === 'limit')) return this.settings.costTasksPerInstance;
    const limit = this.argument(node, 'limit');
    if (limit === undefined || limit === null) return this.settings.defaultLimit;
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0 || limit > this.settings.maxLimit) return 0;
    return limit;
  }

  /** An argument's value from a literal or a variable (its default when the request gives none); undefined when absent. */
  private argument(node: FieldNode, name: string, read: (value: ValueNode) => unknown = literal): unknown {
    const value = node.arguments?.find((a) => a.name.value === name)?.value;
    if (value === undefined) return undefined;
    if (value.kind !== Kind.VARIABLE) return read(value);
    const variable = value.name.value;
    if (Object.hasOwn(this.variables, variable)) return this.variables[variable];
    const declared = this.operation.variableDefinitions?.find((d) => d.variable.name.value === variable);
    return declared?.defaultValue === undefined ? undefined : read(declared.defaultValue);
  }

  /** An input object argument as the client wrote it: a literal (variables inside it read), or a variable's JSON. */
  private argumentValue(node: FieldNode, name: string): unknown {
    return this.argument(node, name, (value) => valueFromASTUntyped(value, this.variables));
  }
}

function literal(value: ValueNode): unknown {
  switch (value.kind) {
    case Kind.INT:
      return Number(value.value);
    case Kind.NULL:
      return null;
    default:
      // Anything else fails validation before execution.
      return Number.NaN;
  }
}

/** The BAD_USER_INPUT message: the cost, the budget, where the cost comes from and how to lower it. */
export function costMessage(cost: OperationCost, budget: number, settings: CostSettings): string {
  const largest = cost.fields
    .slice(0, 3)
    .map((f) => `${f.key} (${f.cost}${f.work === undefined ? '' : `, of which ${f.work} its statement and filter`})`)
    .join(', ');
  return (
    `Query cost ${cost.total} exceeds the budget of ${budget} rows (GRAPHQL_MAX_COST). ` +
    `Each list counts its limit (default ${settings.defaultLimit}) and 1 per ${OFFSET_ROWS_PER_COST} rows its offset skips, each taskExecutions list ${settings.costTasksPerInstance} per instance of the list it is in, a single lookup 1, ` +
    `a count ${countCostOf(settings.countExactLimit ?? DEFAULT_COUNT_EXACT_LIMIT)} (per status in workflowInstanceStatusCounts)` +
    (settings.prices === undefined || !cost.fields.some((f) => f.work !== undefined) ? '. ' : `; ${workMessage(settings.prices)}. `) +
    `Largest: ${largest}. Lower the limits, request fewer lists or aliases at once (or split the query), select taskExecutions for fewer instances, ` +
    `${cost.fields.some((f) => f.work !== undefined) ? 'page deep with after: <cursor> instead of offset, or use fewer and cheaper filter conditions.' : 'or page deep with after: <cursor> instead of offset.'}`
  );
}

/** What the backend's work adds, as the message states it. */
function workMessage(prices: WorkPrices): string {
  return (
    `each field that reads ${prices.statement} more (every alias is one), and its filter's work on this backend: ` +
    `${prices.inValue} per in value, ${prices.jsonInValue} per JSON in value, ${prices.jsonLookup} per JSON eq or in pair, ` +
    `${prices.jsonTest} per other JSON test (ne, gt, contains, exists…), ${prices.pattern} per like, contains, startsWith or endsWith, ` +
    `${prices.relation} per taskExecutions filter, ${prices.condition} per other condition (docs/query-cost.md)`
  );
}
