// A `Format regex` [PARSER] as the tail input applies it to each physical line (src/flb_parser_regex.c): the
// named groups become the record's fields in pattern order (an empty one is left out: Skip_Empty_Values defaults
// to On), Time_Key is read with Time_Format into the record
// time and kept in the record only with Time_Keep. A line the regex does not match becomes `{log: <line>}`
// stamped with the read time. Onigmo's named groups `(?<name>…)` are JavaScript's too; the line is matched as
// latin1 so every group is an exact byte range (`log` stays bytes, invalid UTF-8 included).

import { type ClassicConfig, ClassicConfigError, property, requiredProperty, sectionsOf } from './classic-config.js';
import { parseRfc3339 } from './builtin-multiline.js';
import { type FluentValue, FluentMap } from './fluent-value.js';

/** The one Time_Format the model reads: RFC 3339 with up to nine fraction digits and Z or an offset. */
export const RFC3339_TIME_FORMAT = '%Y-%m-%dT%H:%M:%S.%L%z';

export interface RegexLineParser {
  readonly name: string;
  parse(line: Buffer): { readonly record: FluentMap; readonly time: number } | undefined;
}

export function regexLineParser(parsers: ClassicConfig, name: string): RegexLineParser {
  const section = sectionsOf(parsers, 'PARSER').find((s) => property(s, 'Name') === name);
  if (!section) throw new ClassicConfigError(`parser ${name} is not defined in ${parsers.source}`);
  if (requiredProperty(section, 'Format') !== 'regex') throw new ClassicConfigError(`parser ${name}: only Format regex is modelled for tail`);
  const regex = new RegExp(requiredProperty(section, 'Regex'), 's');
  const timeKey = property(section, 'Time_Key');
  const timeFormat = property(section, 'Time_Format');
  const timeKeep = /^(on|true|yes|1)$/i.test(property(section, 'Time_Keep') ?? 'off');
  const skipEmpty = /^(on|true|yes|1)$/i.test(property(section, 'Skip_Empty_Values') ?? 'on');
  if (timeKey !== undefined && timeFormat !== RFC3339_TIME_FORMAT) throw new ClassicConfigError(`parser ${name}: Time_Format ${timeFormat} is not modelled`);
  return {
    name,
    parse(line) {
      const match = regex.exec(line.toString('latin1'));
      if (!match?.groups) return undefined;
      const entries: [string, FluentValue][] = [];
      let time: number | undefined;
      for (const [key, text] of Object.entries(match.groups)) {
        if (text === undefined || (text === '' && skipEmpty)) continue;
        const bytes = Buffer.from(text, 'latin1');
        if (key === timeKey) {
          time = parseRfc3339(text);
          if (time === undefined) return undefined; // Fluent Bit: invalid time → the parser fails for the line
          if (!timeKeep) continue;
        }
        entries.push([key, key === 'log' ? bytes : bytes.toString('utf8')]);
      }
      return { record: new FluentMap(entries), time: time ?? Number.NaN };
    },
  };
}
