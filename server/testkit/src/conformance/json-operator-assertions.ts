// JSON filter operators beyond eq: ne, gt/gte/lt/lte (numerically when the operand is a JSON number, then only
// numbers match; otherwise as text by code point against strings only), in, contains (strings, literal,
// case-sensitive), exists (true: present with any value, JSON null included; false: absent, also when there is no
// payload). Two-valued: a missing path matches nothing but exists: false, and `not` matches exactly the others.
// Every expected list is written out by hand from the payloads in expected-data.ts.
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES, ID } from './expected-data.js';
import { compareCodePoints } from './expected-order.js';
import { instanceIdsForVariable, taskIdsForVariable } from './served.js';

const sorted = (list: readonly string[]): string[] => [...list].sort(compareCodePoints);
const allExcept = (...excluded: string[]): string[] => sorted(ALL_INSTANCES.map((i) => i.id).filter((id) => !excluded.includes(id)));
const pair = (key: string, value: string) => ({ key, value });

type Case = readonly [title: string, filter: Record<string, unknown>, expected: readonly string[]];

const INSTANCE_CASES: readonly Case[] = [
  // ne: present and different (an object at the path is different; a missing path is not)
  ['ne: amount 1000 (1000 and "1000" are equal, the object is not)', { input: { ne: [pair('amount', '1000')] } }, [ID.paymentCapture]],
  ['ne: orderId', { input: { ne: [pair('orderId', 'ORD-7F3A-0042')] } }, [ID.orderCancelled, ID.orderFulfilment, ID.manualReview]],
  ['not ne: everything else, missing paths included', { not: { input: { ne: [pair('amount', '1000')] } } }, allExcept(ID.paymentCapture)],
  // numbers: only JSON numbers match a number operand
  ['gt 999: the number 1000, not the string "1000"', { input: { gt: [pair('amount', '999')] } }, [ID.jsonNumbers]],
  ['gte 1000', { input: { gte: [pair('amount', '1000')] } }, [ID.jsonNumbers]],
  ['lte 1000.0', { input: { lte: [pair('amount', '1000.0')] } }, [ID.jsonNumbers]],
  ['lt 1000', { input: { lt: [pair('amount', '1000')] } }, []],
  ['lt 20 on a fraction', { input: { lt: [pair('price', '20')] } }, [ID.jsonNumbers]],
  ['gt -1 on a negative', { input: { gt: [pair('negative', '-1')] } }, [ID.jsonNumbers]],
  ['gte 7 nested', { input: { gte: [pair('signals.velocity', '7')] } }, [ID.manualReview]],
  ['gt 7 nested', { input: { gt: [pair('signals.velocity', '7')] } }, []],
  ['gt 2.5e0 in an array of arrays', { input: { gt: [pair('matrix.1.0', '2.5e0')] } }, [ID.jsonNumbers]],
  ['gt 0: the string "1000" is not a number', { input: { gt: [pair('amount', '0')] } }, [ID.jsonNumbers]],
  // text: by code point, strings only
  ['gt on text', { input: { gt: [pair('orderId', 'ORD-7F3A-0042')] } }, [ID.orderCancelled, ID.manualReview]],
  ['gte on text', { input: { gte: [pair('orderId', 'ORD-7F3A-0042')] } }, [ID.orderIntake, ID.orderCancelled, ID.manualReview]],
  ['lt on text', { input: { lt: [pair('orderId', 'ORD-7F3A-0042')] } }, [ID.orderFulfilment]],
  ['gt "": every string, not the number 1000', { input: { gt: [pair('amount', '')] } }, [ID.noNamespace]],
  ['code point order: Ä after Z', { input: { gt: [pair('reason', 'Z')] } }, [ID.suspended]],
  ['case-sensitive text order: "manager" after "Z", not after "n"', { input: { gt: [pair('gate', 'Z')], lt: [pair('gate', 'n')] } }, [ID.waiting]],
  // in
  ['in: text values', { input: { in: [{ key: 'orderId', values: ['ORD-7F3A-0040', 'ORD-7F3A-0044', 'nope'] }] } }, [ID.orderFulfilment, ID.manualReview]],
  ['in: "1000" matches the number and the string', { input: { in: [{ key: 'amount', values: ['1000', '5'] }] } }, [ID.jsonNumbers, ID.noNamespace]],
  ['in: []', { input: { in: [{ key: 'amount', values: [] }] } }, []],
  ['in: "true" matches the boolean and the string', { input: { in: [{ key: 'flags.vip', values: ['true'] }, { key: 'label', values: ['true'] }] } }, [ID.jsonNumbers]],
  // contains
  ['contains', { input: { contains: [pair('customer.name', "O'Connor")] } }, [ID.paymentCapture]],
  ['contains "": every string at the path', { input: { contains: [pair('customer.name', '')] } }, [ID.orderIntake, ID.paymentCapture, ID.orderCancelled]],
  ['contains on a number: no match (strings only)', { input: { contains: [pair('amount', '100')] } }, [ID.noNamespace]],
  ['contains is literal: % and _', { input: { contains: [pair('special', '%_')] } }, [ID.jsonNumbers]],
  ['contains is case-sensitive', { input: { contains: [pair('reason', 'öl')] } }, []],
  ['contains non-ASCII', { input: { contains: [pair('reason', 'Öl')] } }, [ID.suspended]],
  // exists
  ['exists true', { input: { exists: [{ key: 'customer.email', value: true }] } }, [ID.orderIntake, ID.orderCancelled]],
  ['exists false: also runs without an input', { input: { exists: [{ key: 'orderId', value: false }] } }, allExcept(ID.orderIntake, ID.orderCancelled, ID.orderFulfilment, ID.manualReview)],
  ['exists true for a JSON null value', { input: { exists: [{ key: 'nothing', value: true }] } }, [ID.jsonNumbers]],
  ['exists on an array index at the root', { input: { exists: [{ key: '0', value: true }] } }, [ID.jsonArrayRoot]],
  ['exists on an array element', { input: { exists: [{ key: 'items.1.sku', value: true }] } }, [ID.orderIntake, ID.jsonNumbers]],
  // output, and operators together (AND)
  ['output gt on a nested number', { output: { gt: [pair('total.amount', '40')] } }, [ID.orderIntake]],
  ['output in', { output: { in: [{ key: 'decision', values: ['APPROVE'] }] } }, [ID.manualReview]],
  ['output exists', { output: { exists: [{ key: 'done', value: true }] } }, [ID.noNamespace]],
  ['operators AND together', { input: { gt: [pair('amount', '999')], exists: [{ key: 'nothing', value: true }], eq: [pair('zip', '01000')] } }, [ID.jsonNumbers]],
  ['operators AND together: no match', { input: { gt: [pair('amount', '999')], exists: [{ key: 'orderId', value: true }] } }, []],
];

const TASK_CASES: readonly Case[] = [
  ['inputArgs gte', { inputArgs: { gte: [pair('amount', '1000')] } }, [`${ID.jsonNumbers}:do/0/price`]],
  ['outputArgs ISO-8601 dates compare as text', { outputArgs: { gte: [pair('dueDate', '2026-06-01')] } }, [`${ID.paymentCapture}:do/0/loadInvoice`]],
  ['inputArgs ISO-8601 dates compare as text', { inputArgs: { gte: [pair('dueDate', '2026-06-01')] } }, [`${ID.paymentCapture}:do/1/chargeCard`]],
  ['outputArgs lt on a date: none earlier', { outputArgs: { lt: [pair('dueDate', '2026-06-01')] } }, []],
  ['outputArgs lte on an array element', { outputArgs: { lte: [pair('lines.0.net', '1000')] } }, [`${ID.paymentCapture}:do/0/loadInvoice`, `${ID.jsonNumbers}:do/0/price`]],
  ['inputArgs exists', { inputArgs: { exists: [{ key: 'n', value: true }] } }, [`${ID.lateRunning}:do/0/work`]],
];

export function describeJsonOperators(client: GraphQLClient): void {
  describe('instances', () => {
    it.each(INSTANCE_CASES)('%s', async (_, filter, expected) => {
      expect(await instanceIdsForVariable(client, filter)).toEqual(sorted(expected));
    });
  });
  describe('task executions', () => {
    it.each(TASK_CASES)('%s', async (_, filter, expected) => {
      expect(await taskIdsForVariable(client, filter)).toEqual(sorted(expected));
    });
  });
  it('in a literal too', async () => {
    const data = await client.data('{ getWorkflowInstances(orderBy: {id: ASC}, filter: {input: {gt: [{key: "amount", value: "999"}], contains: [{key: "special", value: "?"}]}}) { id } }');
    expect(data['getWorkflowInstances']).toEqual([{ id: ID.jsonNumbers }]);
  });
  it.each([
    ['a number out of range', { input: { gt: [pair('amount', '1e400')] } }, 'filter.input.gt[0].value'],
    ['an in value out of range', { input: { in: [{ key: 'amount', values: ['1', '-1e999'] }] } }, 'filter.input.in[0].values[1]'],
    ['an empty path segment', { input: { exists: [{ key: 'a..b', value: true }] } }, 'filter.input.exists[0].key must be a dot path'],
    ['an empty key', { output: { contains: [pair('', 'x')] } }, 'filter.output.contains[0].key must be a dot path'],
  ] as const)('%s is BAD_USER_INPUT saying what is allowed', async (_, filter, message) => {
    const errors = await client.errors('query ($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }', { f: filter });
    expect(errors[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(errors[0]?.message).toContain(message);
  });
}
