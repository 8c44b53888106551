// plugins/filter_rewrite_tag: the first matching rule re-emits the record under its new tag through the emitter
// input (so it passes the filter chain again from the top) and drops the original unless KEEP is true.
import { ClassicConfigError, type ConfigSection, isOn, properties, property } from '../classic-config.js';
import { textOf } from '../fluent-value.js';
import { parseRecordAccessor, readValue, type RecordPath } from '../record-accessor.js';
import { type FilterPlugin, keep } from './filter.js';

export interface RewriteRuleDefinition {
  readonly filter: string;
  readonly key: RecordPath;
  readonly regex: RegExp;
  readonly newTag: string;
  readonly keep: boolean;
}

export const rewriteTagFilter: FilterPlugin = (section) => {
  const rules = parseRewriteRules(section);
  return {
    apply: (item) => {
      const rule = rules.find((r) => {
        const text = textOf(readValue(item.record, r.key));
        return text !== undefined && r.regex.test(text);
      });
      if (!rule) return keep(item);
      const emitted = { ...item, tag: rule.newTag };
      // Fluent Bit counts every record it does not keep under the old tag as a drop, re-tagged or not.
      return { pass: rule.keep ? [item] : [], reemit: [emitted], counted: rule.keep ? 0 : 1 };
    },
  };
};

export function parseRewriteRules(section: ConfigSection): RewriteRuleDefinition[] {
  const alias = property(section, 'Alias') ?? 'rewrite_tag';
  return properties(section, 'Rule').map((text) => {
    const tokens = text.trim().split(/\s+/);
    if (tokens.length !== 4) throw new ClassicConfigError(`[FILTER] ${alias}: Rule needs KEY REGEX NEW_TAG KEEP, got: ${text}`);
    const [key, regex, newTag, keep] = tokens as [string, string, string, string];
    if (newTag.includes('$')) throw new ClassicConfigError(`[FILTER] ${alias}: tags composed from record fields are not modelled`);
    if (!/^(true|false|on|off)$/i.test(keep)) throw new ClassicConfigError(`[FILTER] ${alias}: KEEP must be true or false, got ${keep}`);
    return { filter: alias, key: parseRecordAccessor(key), regex: new RegExp(regex), newTag, keep: isOn(keep) };
  });
}
