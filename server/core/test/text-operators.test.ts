// The table of text operators is the one place an operator is added: the schema must offer exactly its operators and
// the shaped ones, and the translation must carry each operator's value as the table says.
import { buildSchema as buildSdlSchema, type GraphQLInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { translateTaskFilter } from '../src/filter-translation.js';
import { loadSchemaSdl } from '../src/schema-sdl.js';
import { SHAPED_STRING_OPERATORS, TEXT_OPERATOR_NAMES, TEXT_OPERATORS } from '../src/text-operators.js';

describe('text operators', () => {
  it('StringFilterInput offers exactly the table\'s operators and the shaped ones', () => {
    const input = buildSdlSchema(loadSchemaSdl()).getType('StringFilterInput') as GraphQLInputObjectType;
    expect(Object.keys(input.getFields()).sort()).toEqual([...TEXT_OPERATOR_NAMES, ...SHAPED_STRING_OPERATORS].sort());
  });

  it('each operator reaches the reader with its value normalized as the table says (taskPosition-style leading "/")', () => {
    for (const op of TEXT_OPERATOR_NAMES) {
      const filter = translateTaskFilter({ taskPosition: { [op]: '/do/0/a' } });
      expect(JSON.stringify(filter), op).toContain(JSON.stringify({ op, value: TEXT_OPERATORS[op].normalized ? 'do/0/a' : '/do/0/a' }));
    }
  });
});
