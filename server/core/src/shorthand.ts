// Shorthand filters: a bare value where a filter input object is expected means `{eq: value}`
// (`filter: {status: COMPLETED}`). graphql-js would reject it during validation (literals) or
// variable coercion (variables), so the document is rewritten after parsing and the variables
// before execution. The schema keeps the typed inputs, so introspection shows them unchanged.
import { Kind } from 'graphql';
import type { DocumentNode, GraphQLInputType, GraphQLSchema, ObjectFieldNode, OperationDefinitionNode, ValueNode } from 'graphql';
import { graphql } from './graphql-runtime.js';

const { TypeInfo, getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, isScalarType, typeFromAST, visit, visitWithTypeInfo } = graphql;

/** A filter input that accepts shorthand: an input object whose `eq` takes a single scalar or enum. */
export function isShorthandTarget(type: GraphQLInputType | null | undefined): boolean {
  if (type === null || type === undefined) return false;
  const nullable = getNullableType(type);
  if (!isInputObjectType(nullable)) return false;
  const eq = nullable.getFields()['eq'];
  if (eq === undefined) return false;
  const eqType = getNullableType(eq.type);
  return isScalarType(eqType) || isEnumType(eqType);
}

const rewritten = new WeakSet<DocumentNode>();

/** Returns the document with every shorthand literal expanded; the same document when there is none. */
export function expandShorthandInDocument(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  if (rewritten.has(document)) return document;
  const variableTypes = new Map<string, GraphQLInputType>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of definition.variableDefinitions ?? []) {
      const type = typeFromAST(schema, v.type);
      if (type !== undefined) variableTypes.set(v.variable.name.value, type as GraphQLInputType);
    }
  }
  const isBareValue = (value: ValueNode): boolean => {
    switch (value.kind) {
      case Kind.STRING:
      case Kind.INT:
      case Kind.FLOAT:
      case Kind.BOOLEAN:
      case Kind.ENUM:
        return true;
      case Kind.VARIABLE: {
        // `{status: $s}` with `$s: WorkflowInstanceStatus` is shorthand too; a variable of the
        // filter input type itself is not.
        const declared = variableTypes.get(value.name.value);
        if (declared === undefined) return false;
        const nullable = getNullableType(declared);
        return isScalarType(nullable) || isEnumType(nullable);
      }
      default:
        return false;
    }
  };
  const typeInfo = new TypeInfo(schema);
  let changed = false;
  const result = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      ObjectField: {
        enter(node: ObjectFieldNode): ObjectFieldNode | undefined {
          if (!isShorthandTarget(typeInfo.getInputType()) || !isBareValue(node.value)) return undefined;
          changed = true;
          return {
            ...node,
            value: {
              kind: Kind.OBJECT,
              loc: node.value.loc,
              fields: [{ kind: Kind.OBJECT_FIELD, loc: node.value.loc, name: { kind: Kind.NAME, value: 'eq' }, value: node.value }],
            },
          };
        },
      },
    }),
  );
  const out = changed ? result : document;
  rewritten.add(out);
  return out;
}

/** Variables with every shorthand expanded along each variable's declared type; key order kept. */
export function expandShorthandInVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (!Object.hasOwn(variables, name)) continue;
    const type = typeFromAST(schema, definition.type);
    if (type !== undefined) out[name] = expandValue(type as GraphQLInputType, variables[name]);
  }
  return out;
}

/** A JSON value (as a variable of `type` would be) with every shorthand expanded along `type`. */
export function expandShorthandValue(type: GraphQLInputType, value: unknown): unknown {
  return expandValue(type, value);
}

function expandValue(type: GraphQLInputType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (isNonNullType(type)) return expandValue(type.ofType, value);
  if (isListType(type)) {
    // A single value where a list is expected is coerced to a one-item list by graphql-js.
    return Array.isArray(value) ? value.map((item) => expandValue(type.ofType, item)) : expandValue(type.ofType, value);
  }
  if (!isInputObjectType(type) || typeof value !== 'object' || Array.isArray(value)) return value;
  const fields = type.getFields();
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const field = fields[key];
    if (field === undefined) out[key] = inner;
    else if (isShorthandTarget(field.type) && isPrimitive(inner)) out[key] = { eq: inner };
    else out[key] = expandValue(field.type, inner);
  }
  return out;
}

function isPrimitive(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
