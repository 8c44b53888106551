// Compiled execution, for the page query's CPU. graphql-jit turns an operation into one generated function
// that resolves, completes and serializes its fields without graphql-js's per-field machinery; for a page of 20
// runs that is most of the server's execution time. It is used only where its answers are graphql-js's answers:
//
// - Queries whose variables are all scalars or enums (lists of them too). graphql-jit generates the coercion of
//   input-object variables by walking their type, and the filter types are recursive (and/or/not, task filters
//   inside run filters): compiling one such operation exhausted a 4 GB heap. Inline filter literals are fine (read
//   from the document, bounded by its size). Every other operation runs on yoga's executor as before.
// - At most MAX_COMPILED_FIELDS selected fields: graphql-jit's code for large selections is slower than graphql-js.
// - Compiled per shape (literal-hoisting.ts): documents that differ only in the values written into them share one
//   compiled operation, run with those values as variables.
// - Shapes seen HOT_AFTER times: a client that sends a new shape per request gets no compilation per request.
// - An answer with errors is replaced by yoga's executor's answer to the same request: graphql-jit words variable
//   coercion errors its own way, leaves `locations` out of field errors and writes `data` before `errors`. So a
//   request that fails (a bad argument, a backend outage) runs its resolvers a second time; answers with data only
//   (nearly every request) run once. The conformance suites send every request twice and require the same bytes.
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { CompiledQuery } from 'graphql-jit';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode, SelectionSetNode, TypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { fragmentsOf, perOperation } from './document-operations.js';
import { operationShape, withValues } from './literal-hoisting.js';
import { timedOut } from './errors.js';
import { graphql } from './graphql-runtime.js';
import type { HotOperations } from './hot-operations.js';
import type { RequestState } from './request-state.js';

/** Executions of a shape (documents and operation) before it is compiled. */
export const HOT_AFTER = 2;

/**
 * Most fields (counted at each place a fragment is spread) an operation may select to be compiled. graphql-jit's
 * generated code for large selections runs slower than graphql-js (measured, 1,000 runs per alias with payloads and
 * the error object, 17 fields each, CPU per request compiled/graphql-js: 1 alias 0.6-0.7, 2 aliases 0.94, 5 aliases
 * 1.18, 10 aliases 1.38, the heaviest legal request of 20 aliases 1.7-2.0); the mix's queries select 5 to 20.
 */
export const MAX_COMPILED_FIELDS = 32;

/**
 * Compiled operations kept at a time. One compiled operation of about 30 fields holds about 140 KiB of heap (230 KiB
 * of RSS) and takes about 2 ms to compile; yoga's parser cache keeps up to 1,000 documents, so without a bound a
 * client cycling through that many documents would add ~230 MiB. The least recently executed one is dropped for a
 * new one and its shape runs on graphql-js from then on (compiled at most once while the shape is remembered).
 */
export const MAX_COMPILED_OPERATIONS = 64;

/**
 * Shapes remembered (their execution counts); beyond it the oldest one not compiled is forgotten. Yoga's parser cache
 * keeps up to 1,000 documents, so this bound is reached only by clients cycling through that many shapes.
 */
export const MAX_SHAPES = 1000;

interface ShapeEntry {
  /** null: not compiled yet, or its compilation failed, or it was dropped: yoga's executor. */
  compiled: CompiledQuery | null;
  /** Executions counted towards HOT_AFTER; -1: never compiled (again). */
  seen: number;
  /** The shape's document, compiled for its operation. */
  readonly document: DocumentNode;
}

interface OperationEntry {
  /** null: not eligible: yoga's executor. */
  readonly shape: ShapeEntry | null;
  /** The values this document gives the shape's hoisted variables (null: none hoisted). */
  readonly values: Readonly<Record<string, unknown>> | null;
  readonly operation: OperationDefinitionNode | null;
}

/** What yoga's context holds of the request that the registration of a hot operation reads. */
interface RequestFacts {
  readonly params?: { readonly query?: unknown; readonly operationName?: unknown };
  readonly requestState?: RequestState;
}

/** Whether the selection set selects more than `limit` fields, fragments counted at every spread (stops counting there). */
function fieldCountAbove(document: DocumentNode, selectionSet: SelectionSetNode, limit: number): boolean {
  const fragments = fragmentsOf(document);
  let count = 0;
  const walk = (set: SelectionSetNode): boolean => {
    for (const selection of set.selections) {
      if (selection.kind === graphql.Kind.FIELD) {
        count += 1;
        if (count > limit) return true;
        if (selection.selectionSet !== undefined && walk(selection.selectionSet)) return true;
      } else if (selection.kind === graphql.Kind.INLINE_FRAGMENT) {
        if (walk(selection.selectionSet)) return true;
      } else {
        const spread = fragments.get(selection.name.value);
        if (spread !== undefined && walk(spread.selectionSet)) return true;
      }
    }
    return false;
  };
  return walk(selectionSet);
}

function namedTypeOf(type: TypeNode): string {
  return type.kind === graphql.Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type);
}

/**
 * Whether to compile this operation: a query of at most MAX_COMPILED_FIELDS fields whose variables are all scalars
 * or enums (or lists of them), so that graphql-jit's generated variable coercion stays small. (graphql-jit adds root fields to the
 * answer in the order their resolvers finish, as yoga's executor does: root-field-order.ts puts both in order.)
 */
export function isCompilable(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): boolean {
  if (operation.operation !== 'query' || fieldCountAbove(document, operation.selectionSet, MAX_COMPILED_FIELDS)) return false;
  return (operation.variableDefinitions ?? []).every((definition) => {
    const type = schema.getType(namedTypeOf(definition.type));
    return type !== undefined && type !== null && graphql.isLeafType(type);
  });
}

export interface CompiledExecutionStats {
  /** Operations compiled since start. */
  compiled: number;
  /** Compiled operations dropped to stay within MAX_COMPILED_OPERATIONS. */
  dropped: number;
  /** Executions answered by a compiled operation. */
  executions: number;
  /** Compiled answers replaced by yoga's executor's (see the header). */
  fallbacks: number;
}

/** This process's figures (every server of the process adds to them). */
export const compiledExecutionStats: CompiledExecutionStats = { compiled: 0, dropped: 0, executions: 0, fallbacks: 0 };

/**
 * With `hot`, every compiled operation that answers a request without errors is registered there under the request's
 * query text and operation name, and forgotten when it is dropped: node:http requests for it are then answered
 * without yoga (hot-operations.ts).
 */
export function useCompiledExecution(schema: GraphQLSchema, stats: CompiledExecutionStats = compiledExecutionStats, maxCompiled = MAX_COMPILED_OPERATIONS, hot: HotOperations | null = null): Plugin {
  // The compiled shapes, least recently executed first.
  const kept = new Map<ShapeEntry, true>();
  const keep = (shape: ShapeEntry): void => {
    kept.delete(shape);
    kept.set(shape, true);
    if (kept.size <= maxCompiled) return;
    const oldest = kept.keys().next().value as ShapeEntry;
    kept.delete(oldest);
    if (hot !== null && oldest.compiled !== null) hot.forget(oldest.compiled);
    oldest.compiled = null;
    oldest.seen = -1;
    stats.dropped += 1;
  };
  const shapes = new Map<string, ShapeEntry>();
  const shapeFor = (key: string, document: DocumentNode): ShapeEntry => {
    const known = shapes.get(key);
    if (known !== undefined) return known;
    const shape: ShapeEntry = { compiled: null, seen: 0, document };
    shapes.set(key, shape);
    if (shapes.size > MAX_SHAPES) forgetOldestUncompiled(shapes);
    return shape;
  };
  const entryFor = perOperation((document, operation): OperationEntry => {
    if (operation === null || !isCompilable(schema, document, operation)) return { shape: null, values: null, operation };
    const shaped = operationShape(schema, document, operation);
    return { shape: shapeFor(shaped.key, shaped.document), values: shaped.values, operation };
  });
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const timedOutResult = (args.contextValue as RequestFacts).requestState?.timedOutResult ?? null;
      if (timedOutResult !== null) {
        setExecuteFn(() => timedOutResult);
        return;
      }
      const entry = entryFor(args.document, args.operationName);
      const shape = entry.shape;
      if (shape === null || shape.seen < 0 || (args.contextValue as RequestFacts).requestState?.compiledFailed === true) return;
      if (shape.compiled === null) {
        shape.seen += 1;
        if (shape.seen < HOT_AFTER) return;
        const compiled = compileQuery(schema, shape.document, args.operationName ?? undefined, { disablingCapturingStackErrors: true });
        if (!isCompiledQuery(compiled)) {
          shape.seen = -1;
          return;
        }
        shape.compiled = compiled;
        stats.compiled += 1;
      }
      const compiled = shape.compiled;
      keep(shape);
      setExecuteFn(async (executeArgs) => {
        const variables = withValues(executeArgs.variableValues, entry.values);
        const result = await compiled.query(executeArgs.rootValue, executeArgs.contextValue, variables);
        stats.executions += 1;
        if (result.errors === undefined || result.errors.length === 0) {
          const facts = executeArgs.contextValue as RequestFacts;
          if (hot !== null && shape.compiled === compiled && entry.operation !== null && typeof facts.params?.query === 'string') {
            const operationName = typeof facts.params.operationName === 'string' ? facts.params.operationName : null;
            hot.register(facts.params.query, operationName, {
              compiled, document: args.document, operation: entry.operation, operationName, loggedName: facts.requestState?.operationName ?? operationName,
              values: entry.values,
              touch: () => {
                if (shape.compiled === compiled) keep(shape);
              },
            });
          }
          return result;
        }
        // Reads that timed out would again, after as long: the compiled answer stands.
        if (timedOut(result)) return result;
        stats.fallbacks += 1;
        return executeFn(executeArgs);
      });
    },
  };
}

/** Forgets the oldest shape that is not compiled (a compiled one leaves only when dropped from the kept ones). */
function forgetOldestUncompiled(shapes: Map<string, ShapeEntry>): void {
  for (const [key, shape] of shapes) {
    if (shape.compiled === null) {
      shapes.delete(key);
      return;
    }
  }
}
