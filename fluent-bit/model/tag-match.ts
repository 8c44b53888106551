// How a [FILTER] or [OUTPUT] section picks records by tag: exactly one of Match (a glob whose `*` crosses dots and
// slashes) and Match_Regex.
import { ClassicConfigError, type ConfigSection, property } from './classic-config.js';

/** `where` names the section in the error. */
export function tagMatcher(section: ConfigSection, where: string): (tag: string) => boolean {
  const matchText = property(section, 'Match');
  const matchRegex = property(section, 'Match_Regex');
  if ((matchText === undefined) === (matchRegex === undefined)) throw new ClassicConfigError(`${where} needs exactly one of Match and Match_Regex`);
  const regex = matchText !== undefined ? globToRegExp(matchText, true) : new RegExp(matchRegex!);
  return (tag) => regex.test(tag);
}

export function globToRegExp(pattern: string, crossesSlash: boolean): RegExp {
  const any = crossesSlash ? '.*' : '[^/]*';
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join(any)}$`);
}
