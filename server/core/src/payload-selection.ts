import { Kind } from 'graphql';
import type { FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

const PAYLOAD_FIELDS = new Set(['inputData', 'outputData']);

/**
 * Whether the selection of the current field asks for inputData or outputData (through fragments
 * too), so the reader can skip loading payloads, usually the bulk of a row. Conservative:
 * a payload field under @skip/@include counts as selected.
 */
export function selectsPayloads(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): boolean {
  const visited = new Set<string>();
  const inSet = (set: SelectionSetNode | undefined): boolean => {
    if (set === undefined) return false;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (PAYLOAD_FIELDS.has(selection.name.value)) return true;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (inSet(selection.selectionSet)) return true;
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment: FragmentDefinitionNode | undefined = info.fragments[name];
        if (inSet(fragment?.selectionSet)) return true;
      }
    }
    return false;
  };
  return info.fieldNodes.some((node) => inSet(node.selectionSet));
}
