// The queries beyond the contract (issue 9) go to `Reader.extended`; a backend without it answers them with a clear
// BAD_USER_INPUT instead of receiving filter kinds or sort fields it does not know. Queries that use only the
// contract's filters and orders keep going to the contract's methods, so they work on every backend.
import { badUserInput } from './errors.js';
import type {
  ExtendedFilterNode,
  ExtendedInstanceSortField,
  ExtendedReader,
  ExtendedTaskSortField,
  FilterNode,
  InstanceSortField,
  Reader,
  SortKey,
  TaskSortField,
} from './reader.js';

/** `what` (e.g. "countWorkflowInstances") is refused: the backend does not implement it yet. */
export function notSupported(reader: Reader, what: string): Error {
  const backend = reader.backendName === undefined ? 'this' : `the ${reader.backendName}`;
  return badUserInput(`${what} is not supported by ${backend} backend yet; the contract's queries, filters and orders work as usual`);
}

/** The reader's extended queries, or BAD_USER_INPUT naming what needed them. */
export function requireExtended(reader: Reader, what: string): ExtendedReader {
  if (reader.extended === undefined) throw notSupported(reader, what);
  return reader.extended;
}

/** The first extended construct of a filter tree as the client wrote it (for the message), or null when there is none. */
export function extendedFeatureOf<S extends string, T extends string>(node: ExtendedFilterNode<S, T> | null): string | null {
  if (node === null) return null;
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.nodes) {
        const found = extendedFeatureOf(child);
        if (found !== null) return found;
      }
      return null;
    case 'not':
      return extendedFeatureOf(node.node);
    case 'jsonOp':
      return `the JSON filter operator ${node.predicate.op}`;
    case 'duration':
      return 'the duration filter';
    case 'tasks':
      return 'the taskExecutions filter of instances';
    case 'instance':
      return 'the workflowName/workflowNamespace/workflowVersion filters of task executions';
    default:
      return null;
  }
}

/** The filter as a contract tree when it is one (then every backend can answer it). */
export function asContractFilter<S extends string, T extends string>(node: ExtendedFilterNode<S, T> | null): FilterNode<S, T> | null | undefined {
  return extendedFeatureOf(node) === null ? (node as FilterNode<S, T> | null) : undefined;
}

/** The sort keys as the contract's when no key is `duration`. */
export function asContractOrder<F extends InstanceSortField | TaskSortField>(keys: readonly SortKey<F | 'duration'>[]): SortKey<F>[] | undefined {
  return keys.some((k) => k.field === 'duration') ? undefined : (keys as SortKey<F>[]);
}

export type { ExtendedInstanceSortField, ExtendedTaskSortField };
