// Error shapes of argument problems: a stable extensions.code and a message that says what is allowed.
// (Limit bounds are asserted with pagination.)
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';

export function describeErrors(client: GraphQLClient): void {
  const codesAndMessage = async (query: string, variables?: Record<string, unknown>) => {
    const errors = await client.errors(query, variables);
    return { codes: errors.map((e) => e.extensions?.['code']), message: errors.map((e) => e.message).join(' | ') };
  };

  describe('DateTime without an offset', () => {
    for (const [title, query] of [
      ['in a literal', '{ getWorkflowInstances(filter: {startDate: {gt: "2026-05-12T09:14:03"}}) { id } }'],
      ['a date only, in a literal', '{ getWorkflowInstances(filter: {endDate: {lt: "2026-05-12"}}) { id } }'],
      ['inside between', '{ getTaskExecutions(filter: {enter: {between: {from: "2026-05-12T09:14:03Z", to: "2026-05-12T10:00:00"}}}) { id } }'],
    ] as const) {
      it(`is BAD_USER_INPUT ${title}`, async () => {
        const { codes, message } = await codesAndMessage(query);
        expect(codes).toEqual(['BAD_USER_INPUT']);
        expect(message).toMatch(/offset/i);
      });
    }

    it('is BAD_USER_INPUT in a variable', async () => {
      const { codes, message } = await codesAndMessage(
        'query ($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }',
        { f: { lastUpdate: { gte: '2026-05-12T09:14:03.512378' } } },
      );
      expect(codes).toEqual(['BAD_USER_INPUT']);
      expect(message).toMatch(/offset/i);
    });

    it('is BAD_USER_INPUT in a shorthand variable', async () => {
      const { codes } = await codesAndMessage('query ($f: TaskExecutionFilterInput) { getTaskExecutions(filter: $f) { id } }', {
        f: { exit: '2026-05-12T09:14:03' },
      });
      expect(codes).toEqual(['BAD_USER_INPUT']);
    });
  });

  describe('JSON filter key paths', () => {
    for (const key of ['', 'a..b', '.a', 'a.']) {
      it(`rejects key ${JSON.stringify(key)} with BAD_USER_INPUT`, async () => {
        const { codes } = await codesAndMessage('query ($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }', {
          f: { input: { eq: [{ key, value: 'x' }] } },
        });
        expect(codes).toEqual(['BAD_USER_INPUT']);
      });
    }

    // key and value are nullable in the schema only so that variables declared `String`, as the Java schema has them, fit
    for (const [title, pair, where] of [
      ['a pair without its value', { key: 'customer.id' }, 'filter.input.eq[1].value'],
      ['a pair with a null key', { key: null, value: 'x' }, 'filter.input.eq[1].key'],
    ] as const) {
      it(`rejects ${title} with BAD_USER_INPUT naming it`, async () => {
        const { codes, message } = await codesAndMessage('query ($f: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $f) { id } }', {
          f: { input: { eq: [null, pair] } },
        });
        expect(codes).toEqual(['BAD_USER_INPUT']);
        expect(message).toContain(`${where} is required`);
      });
    }

    it('rejects a literal task pair without its key with BAD_USER_INPUT naming it', async () => {
      const { codes, message } = await codesAndMessage('{ getTaskExecutions(filter: {outputArgs: {ne: [{value: "J-55817"}]}}) { id } }');
      expect(codes).toEqual(['BAD_USER_INPUT']);
      expect(message).toContain('filter.outputArgs.ne[0].key is required');
    });

    it('rejects an empty segment in a literal task filter with BAD_USER_INPUT', async () => {
      const { codes } = await codesAndMessage('{ getTaskExecutions(filter: {outputArgs: {eq: [{key: "journal..id", value: "J-55817"}]}}) { id } }');
      expect(codes).toEqual(['BAD_USER_INPUT']);
    });
  });
}
