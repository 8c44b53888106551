// The answer's top-level fields in the order of the selection set, as the GraphQL specification asks ("Response
// maps … should be serialized in the order of the selection set"). yoga's executor (@graphql-tools/executor) and
// graphql-jit both add a root field to `data` when its resolver finishes, so `{ a: getX(…) b: getY(…) }` answered
// `{"b":…,"a":…}` whenever b's read came back first: the same request could answer different bytes. Nested objects
// keep their order in both executors; only the root is put back in order here.
import type { DocumentNode, ExecutionResult, OperationDefinitionNode, SelectionSetNode } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import type { Plugin } from 'graphql-yoga';
import { fragmentsOf, perOperation } from './document-operations.js';
import { graphql } from './graphql-runtime.js';

/** The response keys of an operation's root selection set in order, fragments inlined, each once. */
export function rootResponseKeys(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const fragments = fragmentsOf(document);
  const keys: string[] = [];
  const seen = new Set<string>();
  const visitedFragments = new Set<string>();
  const walk = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === graphql.Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        if (!seen.has(key)) {
          seen.add(key);
          keys.push(key);
        }
      } else if (selection.kind === graphql.Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (fragment !== undefined && !visitedFragments.has(name)) {
          visitedFragments.add(name);
          walk(fragment.selectionSet);
        }
      }
    }
  };
  walk(operation.selectionSet);
  return keys;
}

/** `data` with its keys in `order` (keys not in `order` last, as they came); the same object when already so. */
export function inOrder(data: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  const present = Object.keys(data);
  if (present.length < 2) return data;
  const wanted = order.filter((key) => Object.hasOwn(data, key));
  const rest = present.filter((key) => !order.includes(key));
  const target = [...wanted, ...rest];
  if (target.every((key, i) => present[i] === key)) return data;
  const ordered: Record<string, unknown> = {};
  for (const key of target) ordered[key] = data[key];
  return ordered;
}

export function useRootFieldOrder(): Plugin {
  const orderOf = perOperation((document, operation) => (operation === null ? null : rootResponseKeys(document, operation)));
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result)) return;
          const data = (result as ExecutionResult).data;
          if (data === null || data === undefined) return;
          const order = orderOf(args.document, args.operationName);
          if (order === null || order.length < 2) return;
          const ordered = inOrder(data, order);
          if (ordered !== data) setResult({ ...(result as ExecutionResult), data: ordered });
        },
      };
    },
  };
}
