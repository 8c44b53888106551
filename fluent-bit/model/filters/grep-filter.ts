// plugins/filter_grep: every `Regex` rule must match (any one with `Logical_Op or`; a missing key does not match), any
// `Exclude` match drops; Logical_Op refuses Regex and Exclude together.
import { ClassicConfigError, properties, property } from '../classic-config.js';
import { textOf } from '../fluent-value.js';
import { parseRecordAccessor, readValue, type RecordPath } from '../record-accessor.js';
import { drop, type FilterPlugin, keep } from './filter.js';

export const grepFilter: FilterPlugin = (section, alias) => {
  const regexRules = properties(section, 'Regex').map(parseGrepRule);
  const excludeRules = properties(section, 'Exclude').map(parseGrepRule);
  const logicalOp = (property(section, 'Logical_Op') ?? 'legacy').toLowerCase();
  if (!['legacy', 'and', 'or'].includes(logicalOp)) throw new ClassicConfigError(`[FILTER] ${alias}: Logical_Op ${logicalOp}`);
  if (logicalOp !== 'legacy' && regexRules.length > 0 && excludeRules.length > 0) {
    throw new ClassicConfigError(`[FILTER] ${alias}: Both 'regex' and 'exclude' are set (Fluent Bit refuses this with Logical_Op)`);
  }
  return {
    apply: (item) => {
      const matches = (rule: GrepRule): boolean => {
        const text = textOf(readValue(item.record, rule.path));
        return text !== undefined && rule.regex.test(text);
      };
      if (logicalOp !== 'legacy') {
        const rules = regexRules.length > 0 ? regexRules : excludeRules;
        const found = logicalOp === 'or' ? rules.some(matches) : rules.every(matches);
        return (regexRules.length > 0) === found ? keep(item) : drop();
      }
      if (!regexRules.every(matches)) return drop();
      if (excludeRules.some(matches)) return drop();
      return keep(item);
    },
  };
};

interface GrepRule {
  readonly path: RecordPath;
  readonly regex: RegExp;
}

function parseGrepRule(text: string): GrepRule {
  const match = /^(\S+)\s+(.+)$/.exec(text.trim());
  if (!match) throw new ClassicConfigError(`grep rule needs a key and a regex: ${text}`);
  return { path: parseRecordAccessor(match[1]!), regex: new RegExp(match[2]!) };
}
