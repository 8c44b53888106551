// The classic-format reader rejects what Fluent Bit would reject or misread, so a config the tests accept is
// one the binary accepts.
import { describe, expect, it } from 'vitest';
import { ClassicConfigError, environmentReferences, expandEnvironment, parseClassicConfig, properties, property, sectionsOf } from '../model/classic-config.js';
import { parseRecordAccessor, readPath } from '../model/record-accessor.js';

const sample = [
  '# comment',
  '[SERVICE]',
  '    Flush 1',
  '',
  '[FILTER]',
  '    Name   grep',
  '    # an indented comment',
  '    Match  kube.*',
  '    Regex  $eventType ${PATTERN}',
  '    Regex  stream ^stdout$',
  '',
].join('\n');

describe('classic configuration reader', () => {
  it('reads sections, repeated keys in order and environment references', () => {
    const config = parseClassicConfig(sample, 'sample.conf');
    expect(config.sections.map((s) => [s.kind, s.line])).toEqual([['SERVICE', 2], ['FILTER', 5]]);
    const filter = sectionsOf(config, 'FILTER')[0]!;
    expect(property(filter, 'name')).toBe('grep');
    expect(properties(filter, 'REGEX')).toEqual(['$eventType ${PATTERN}', 'stream ^stdout$']);
    expect(environmentReferences(config)).toEqual(['PATTERN']);
    expect(properties(sectionsOf(expandEnvironment(config, { PATTERN: '^io\\.' }), 'FILTER')[0]!, 'Regex')[0]).toBe('$eventType ^io\\.');
  });

  it('refuses an unset environment variable instead of substituting an empty string', () => {
    expect(() => expandEnvironment(parseClassicConfig(sample, 'sample.conf'), {})).toThrow('sample.conf: environment variables not set: PATTERN');
  });

  it.each([
    ['[INPUT]\n    Name tail\n  Tag x\n', 'sample.conf:3: indentation differs from the first entry of the file'],
    ['    Name tail\n', 'sample.conf:1: entry before the first section'],
    ['[INPUTS]\n    Name tail\n', 'sample.conf:1: unknown section [INPUTS]'],
    ['[INPUT]\nName tail\n', 'sample.conf:2: entries must be indented under a [SECTION]'],
    ['[INPUT]\n    Tag x\n', 'sample.conf:1: [INPUT] without Name'],
    ['@INCLUDE other.conf\n', 'sample.conf:1: directive @INCLUDE is not used by this project'],
    ['[INPUT]\n    Name\n', 'sample.conf:2: Name has no value'],
  ])('rejects %j', (text, message) => {
    expect(() => parseClassicConfig(text, 'sample.conf')).toThrow(new ClassicConfigError(message));
  });

  it('refuses a key set twice where Fluent Bit would keep only one value', () => {
    const config = parseClassicConfig('[OUTPUT]\n    Name pgsql\n    Table a\n    Table b\n', 'x.conf');
    expect(() => property(config.sections[0]!, 'Table')).toThrow('sets Table 2 times');
  });
});

describe('record accessor', () => {
  it('reads nested keys with quoted subscripts and array indexes', () => {
    const record = { kubernetes: { labels: { 'workflow-index/enabled': 'false' } }, list: [{ a: 'x' }] };
    expect(readPath(record, parseRecordAccessor("$kubernetes['labels']['workflow-index/enabled']"))).toBe('false');
    expect(readPath(record, parseRecordAccessor("$list[0]['a']"))).toBe('x');
    expect(readPath(record, parseRecordAccessor('eventType'))).toBeUndefined();
    expect(readPath(record, parseRecordAccessor("$kubernetes['missing']['x']"))).toBeUndefined();
  });

  it('rejects malformed accessors', () => {
    expect(() => parseRecordAccessor("$a['b'")).toThrow('not a record accessor');
  });
});
