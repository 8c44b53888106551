// A [FILTER] section as the model runs it: its Match or Match_Regex, and the plugin its Name picks.
import { ClassicConfigError, type ConfigSection, property, requiredProperty } from '../classic-config.js';
import { tagMatcher } from '../tag-match.js';
import type { Filter, FilterContext, FilterPlugin } from './filter.js';
import { grepFilter } from './grep-filter.js';
import { kubernetesFilter } from './kubernetes-filter.js';
import { luaScriptFilter } from './lua-script-filter.js';
import { parserFilter } from './parser-filter.js';
import { rewriteTagFilter } from './rewrite-tag-filter.js';

const PLUGINS: Readonly<Record<string, FilterPlugin>> = {
  parser: parserFilter,
  grep: grepFilter,
  kubernetes: kubernetesFilter,
  rewrite_tag: rewriteTagFilter,
  lua: luaScriptFilter,
};

export function buildFilter(section: ConfigSection, index: number, context: FilterContext): Filter {
  const name = requiredProperty(section, 'Name');
  const alias = property(section, 'Alias') ?? `${name}.${index}`;
  const match = tagMatcher(section, `[FILTER] ${alias}`);
  const plugin = PLUGINS[name];
  if (plugin === undefined) throw new ClassicConfigError(`filter ${name} (${alias}) is not modelled`);
  return { alias, match, ...plugin(section, alias, context) };
}
