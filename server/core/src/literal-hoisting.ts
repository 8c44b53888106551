// The shape of an operation: its field arguments' inline values of the built-in scalars and of enums made variables.
// Clients of the Java Data Index write values into the query text (`getTaskExecutionsByWorkflowInstance(
// workflowInstanceId: "…")`), so every run they ask for is another document; compiled per document, each would be
// compiled once and dropped (MAX_COMPILED_OPERATIONS), and run on graphql-js through yoga from then on. Compiled per
// shape, all of them share one compiled operation, run with the values they wrote as its variables.
//
// Only values whose literal and variable forms coerce alike are taken: String, Int, Float, Boolean and ID (their
// parseLiteral and parseValue agree on every literal validation lets through) and enums (a variable names the
// value as its literal does). Values of other scalars, `null`, default values of variables and directive arguments
// stay in the text. Inside input objects and lists each such value is taken on its own, so `filter: {name: {like:
// "a*"}}` and `filter: {name: {like: "b*"}}` share a shape while `{name: …}` and `{status: …}` do not.
import type { DocumentNode, GraphQLInputType, GraphQLSchema, OperationDefinitionNode, TypeNode, ValueNode, VariableDefinitionNode } from 'graphql';
import { fragmentsOf } from './document-operations.js';
import { graphql } from './graphql-runtime.js';

/** One operation's shape, and the values its hoisted variables take for this document. */
export interface OperationShape {
  /** The operation with its values made variables, and the document's fragments (no other operation). */
  readonly document: DocumentNode;
  /** The shape's printed text: documents with the same key share a compiled operation. */
  readonly key: string;
  /** The hoisted variables' values, as a request would send them; null when none was hoisted. */
  readonly values: Readonly<Record<string, unknown>> | null;
}

/** Hoisted variables are named PREFIX0, PREFIX1, …; an operation declaring a variable of that prefix is not hoisted. */
export const HOISTED_PREFIX = 'wiLiteral';

const HOISTED_SCALARS = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);

/** The value of `node` as a request's variables would hold it, or undefined when `type` is not hoisted. */
function hoistedValue(node: ValueNode, type: GraphQLInputType): unknown {
  const named = graphql.getNamedType(type);
  if (graphql.isEnumType(named)) return node.kind === graphql.Kind.ENUM ? node.value : undefined;
  if (!graphql.isScalarType(named) || !HOISTED_SCALARS.has(named.name)) return undefined;
  // An ID written as an integer is its digits as written: `-0` stays "-0" (as a number it would print "0").
  if (named.name === 'ID') return node.kind === graphql.Kind.STRING || node.kind === graphql.Kind.INT ? node.value : undefined;
  switch (node.kind) {
    case graphql.Kind.STRING:
    case graphql.Kind.BOOLEAN:
      return node.value;
    case graphql.Kind.INT:
    case graphql.Kind.FLOAT:
      return Number(node.value);
    default:
      return undefined;
  }
}

function typeNodeOf(type: GraphQLInputType): TypeNode {
  return graphql.parseType(String(type));
}

/** `definitions` as a document of their own, keyed by its text. */
function keyed(definitions: DocumentNode['definitions'], values: OperationShape['values']): OperationShape {
  const document: DocumentNode = { kind: graphql.Kind.DOCUMENT, definitions };
  return { document, key: graphql.print(document), values };
}

/**
 * The shape of `operation` in `document`: the operation and the document's fragments, with nothing hoisted (values
 * null) when it has no such value or declares a variable named like the hoisted ones. The document must have passed
 * validation (types are read from the schema along its paths).
 */
export function operationShape(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): OperationShape {
  const alone = [operation, ...fragmentsOf(document).values()];
  if ((operation.variableDefinitions ?? []).some((definition) => definition.variable.name.value.startsWith(HOISTED_PREFIX))) return keyed(alone, null);
  const values: Record<string, unknown> = {};
  const definitions: VariableDefinitionNode[] = [];
  const typeInfo = new graphql.TypeInfo(schema);
  const hoist = (node: ValueNode): ValueNode | undefined => {
    const type = typeInfo.getInputType();
    if (type === undefined || type === null || typeInfo.getArgument() === null || typeInfo.getDirective() !== null) return undefined;
    const value = hoistedValue(node, type);
    if (value === undefined) return undefined;
    const name = `${HOISTED_PREFIX}${definitions.length}`;
    values[name] = value;
    const variable = { kind: graphql.Kind.VARIABLE, name: { kind: graphql.Kind.NAME, value: name } } as const;
    definitions.push({ kind: graphql.Kind.VARIABLE_DEFINITION, variable, type: typeNodeOf(type) });
    return variable;
  };
  const visitor = graphql.visitWithTypeInfo(typeInfo, {
    VariableDefinition: () => false, // default values stay
    StringValue: hoist,
    IntValue: hoist,
    FloatValue: hoist,
    BooleanValue: hoist,
    EnumValue: hoist,
  });
  const shaped = graphql.visit({ kind: graphql.Kind.DOCUMENT, definitions: alone }, visitor);
  if (definitions.length === 0) return keyed(alone, null);
  const [shapedOperation, ...shapedFragments] = shaped.definitions as [OperationDefinitionNode, ...DocumentNode['definitions']];
  const withVariables: OperationDefinitionNode = {
    ...shapedOperation,
    variableDefinitions: [...(shapedOperation.variableDefinitions ?? []), ...definitions],
  };
  return keyed([withVariables, ...shapedFragments], values);
}

/** The request's variables with the values its document gives the shape's hoisted variables. */
export function withValues(variables: Readonly<Record<string, unknown>> | null | undefined, values: OperationShape['values']): Record<string, unknown> {
  if (values === null) return (variables ?? {}) as Record<string, unknown>;
  return { ...variables, ...values };
}
