// What the GraphQL plugins read off a parsed document: its fragments by name, and facts about one of its
// operations worked out once per (document, operation name) while yoga's parser cache keeps the document.
import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import { graphql } from './graphql-runtime.js';

/** The document's fragment definitions by name. */
export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === graphql.Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

/**
 * `compute` for the operation a request names (null when the document has no such operation), called once per
 * document and operation name; later calls answer the same value.
 */
export function perOperation<T>(compute: (document: DocumentNode, operation: OperationDefinitionNode | null) => T): (document: DocumentNode, operationName: string | null | undefined) => T {
  const byDocument = new WeakMap<DocumentNode, Map<string, T>>();
  return (document, operationName) => {
    let byName = byDocument.get(document);
    if (byName === undefined) {
      byName = new Map();
      byDocument.set(document, byName);
    }
    const key = operationName ?? '';
    if (byName.has(key)) return byName.get(key) as T;
    const value = compute(document, graphql.getOperationAST(document, operationName) ?? null);
    byName.set(key, value);
    return value;
  };
}
