// Which filter conditions read a payload: `input`/`output` (inputArgs/outputArgs of tasks), any JSON operator, and
// `error.detail`, of runs or of their tasks. A subject that may not read a payload may not filter on it either:
// the answers would tell its content.
import type { InstanceFilter, TaskFilter } from '../reader.js';

type AnyFilter = InstanceFilter | TaskFilter;

/** The first payload condition of the tree, named as a client wrote it; null when it has none. */
export function payloadCondition(filter: AnyFilter | null): string | null {
  if (filter === null) return null;
  switch (filter.kind) {
    case 'and':
    case 'or':
      return firstOf(filter.nodes);
    case 'not':
      return payloadCondition(filter.node);
    case 'tasks':
    case 'instance':
      return payloadCondition(filter.node);
    case 'json':
    case 'jsonOp':
      return filter.field;
    case 'string':
      return filter.field === 'error.detail' ? 'error.detail' : null;
    default:
      return null;
  }
}

function firstOf(nodes: readonly AnyFilter[]): string | null {
  for (const node of nodes) {
    const found = payloadCondition(node);
    if (found !== null) return found;
  }
  return null;
}
