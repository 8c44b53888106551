// The shape of an operation (server/core/src/literal-hoisting.ts): which values written into a document become the
// shape's variables, with the values a request would send, and which stay in the text.
import { describe, expect, it } from 'vitest';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import { graphql } from '../src/graphql-runtime.js';
import { HOISTED_PREFIX, operationShape } from '../src/literal-hoisting.js';
import { buildSchema } from '../src/graphql-server.js';
import { loadSchemaSdl } from '../src/schema-sdl.js';
import { testConfig } from '@workflow-index/testkit';

const schema = buildSchema(loadSchemaSdl(), testConfig());

function shapeOf(text: string, name?: string) {
  const document: DocumentNode = graphql.parse(text);
  expect(graphql.validate(schema, document)).toEqual([]);
  const operation = graphql.getOperationAST(document, name) as OperationDefinitionNode;
  return operationShape(schema, document, operation);
}

describe('operation shapes', () => {
  it('field arguments of the built-in scalars and enums become variables of their own types, with the values written', () => {
    const shape = shapeOf('{ getWorkflowInstances(limit: 20, offset: 5, filter: {status: {in: [FAULTED, COMPLETED]}, name: {like: "order-*"}}, orderBy: {startDate: DESC}) { id } getWorkflowInstance(id: 42) { id } }');
    expect(shape.values).toEqual({
      [`${HOISTED_PREFIX}0`]: 20, [`${HOISTED_PREFIX}1`]: 5, [`${HOISTED_PREFIX}2`]: 'FAULTED', [`${HOISTED_PREFIX}3`]: 'COMPLETED',
      [`${HOISTED_PREFIX}4`]: 'order-*', [`${HOISTED_PREFIX}5`]: 'DESC', [`${HOISTED_PREFIX}6`]: '42',
    });
    expect(shape.key).toContain(`query ($${HOISTED_PREFIX}0: Int, $${HOISTED_PREFIX}1: Int, $${HOISTED_PREFIX}2: WorkflowInstanceStatus, $${HOISTED_PREFIX}3: WorkflowInstanceStatus, $${HOISTED_PREFIX}4: String, $${HOISTED_PREFIX}5: OrderBy, $${HOISTED_PREFIX}6: ID!)`);
    // The shape is a valid operation that, given those values, asks what the document asks.
    expect(graphql.validate(schema, shape.document)).toEqual([]);
  });

  it('documents that differ only in such values share a key; another structure or key order does not', () => {
    const key = (text: string) => shapeOf(text).key;
    const page = (limit: number, name: string) => `{ getWorkflowInstances(limit: ${limit}, filter: {name: {eq: "${name}"}}, orderBy: {name: ASC, startDate: DESC}) { id } }`;
    expect(key(page(1, 'a'))).toBe(key(page(500, 'b\\"c')));
    expect(key('{ getWorkflowInstances(orderBy: {startDate: DESC, name: ASC}) { id } }')).not.toBe(key('{ getWorkflowInstances(orderBy: {name: ASC, startDate: DESC}) { id } }'));
    expect(key('{ getWorkflowInstances(filter: {name: {eq: "a"}}) { id } }')).not.toBe(key('{ getWorkflowInstances(filter: {namespace: {eq: "a"}}) { id } }'));
    expect(key('{ getWorkflowInstances(filter: {status: {in: [FAULTED]}}) { id } }')).not.toBe(key('{ getWorkflowInstances(filter: {status: {in: [FAULTED, RUNNING]}}) { id } }'));
  });

  it('a string is its value, escapes decoded; an integer ID keeps its digits as written', () => {
    expect(shapeOf('{ getWorkflowInstance(id: "a\\u0062\\"c") { id } }').values).toEqual({ [`${HOISTED_PREFIX}0`]: 'ab"c' });
    expect(shapeOf('{ getWorkflowInstance(id: -0) { id } }').values).toEqual({ [`${HOISTED_PREFIX}0`]: '-0' });
  });

  it('null, directive arguments, default values and variables stay as written; so does an operation using the prefix', () => {
    const shape = shapeOf('query Q($n: Int = 5, $id: ID!) { getWorkflowInstance(id: $id) { id name @include(if: true) } getWorkflowInstances(limit: $n, offset: null) { id } }');
    expect(shape.values).toBeNull();
    expect(graphql.print(shape.document)).toBe(graphql.print(graphql.parse('query Q($n: Int = 5, $id: ID!) { getWorkflowInstance(id: $id) { id name @include(if: true) } getWorkflowInstances(limit: $n, offset: null) { id } }')));
    expect(shapeOf(`query Q($${HOISTED_PREFIX}0: Int) { getWorkflowInstances(limit: $${HOISTED_PREFIX}0, offset: 3) { id } }`).values).toBeNull();
  });

  it('values in fragments become variables of the operation; other operations of the document are left out', () => {
    const text = 'query A { getWorkflowInstances(limit: 1) { id } } query B { ...F }\nfragment F on Query { getWorkflowInstance(id: "x") { id } }';
    const shape = shapeOf(text, 'B');
    expect(shape.values).toEqual({ [`${HOISTED_PREFIX}0`]: 'x' });
    expect(shape.document.definitions).toHaveLength(2);
    expect(graphql.validate(schema, shape.document)).toEqual([]);
  });
});
