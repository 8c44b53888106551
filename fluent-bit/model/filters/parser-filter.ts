// plugins/filter_parser: parses the value of Key_Name with a named parser (json only), replacing the record, or with
// Reserve_Data keeping the record's other keys after the parsed ones.
import { type ClassicConfig, ClassicConfigError, isOn, property, requiredProperty, sectionsOf } from '../classic-config.js';
import { type FluentBitVersion, parseFluentJson } from '../flb-json-parser.js';
import { FluentMap } from '../fluent-value.js';
import { type FilterPlugin, keep } from './filter.js';

export const parserFilter: FilterPlugin = (section, _alias, context) => {
  const key = requiredProperty(section, 'Key_Name');
  const parserName = requiredProperty(section, 'Parser');
  const parse = parserFunction(context.parsers, parserName, context.version);
  const reserve = isOn(property(section, 'Reserve_Data'));
  const preserve = isOn(property(section, 'Preserve_Key'));
  return {
    apply: (item) => {
      const value = item.record.get(key);
      const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.isBuffer(value) ? value : undefined;
      const parsed = bytes ? parse(bytes) : undefined;
      if (!parsed) return keep(item);
      const rest = preserve ? item.record : item.record.without([key]);
      if (!reserve) return keep({ ...item, record: preserve ? new FluentMap([[key, value!], ...parsed.entries]) : parsed });
      // plugins/filter_parser: the parsed fields, then the record's other keys, appended without deduplicating.
      // On a collision (time, stream, _p) the record's own key comes last, so the record accessor and the JSON
      // printer read it (observed with 4.0.13 and 4.2.8: the event's field of that name is not in the output).
      return keep({ ...item, record: new FluentMap([...parsed.entries, ...rest.entries]) });
    },
  };
};

function parserFunction(parsers: ClassicConfig, name: string, version: FluentBitVersion): (bytes: Buffer) => FluentMap | undefined {
  const section = sectionsOf(parsers, 'PARSER').find((s) => property(s, 'Name') === name);
  if (!section) throw new ClassicConfigError(`parser ${name} is not defined in ${parsers.source}`);
  const format = requiredProperty(section, 'Format');
  if (format !== 'json') throw new ClassicConfigError(`parser ${name}: format ${format} is not modelled`);
  if (property(section, 'Time_Key') !== undefined) throw new ClassicConfigError(`parser ${name}: Time_Key is not modelled`);
  return (bytes) => parseFluentJson(bytes, version);
}
