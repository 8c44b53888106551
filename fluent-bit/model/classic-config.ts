// A reader for Fluent Bit's classic configuration format (the `.conf` files in fluent-bit/<backend>/), strict
// enough that a file it accepts is one Fluent Bit accepts too: sections in square brackets, indented
// `key value` entries (one indentation width per file), full-line `#` comments, `${VAR}` references expanded
// from the environment. `@INCLUDE`/`@SET` are rejected: our configs keep everything in two files, and the
// tests can then see every setting.

export interface ConfigEntry {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

export interface ConfigSection {
  /** Upper-cased section name: SERVICE, INPUT, FILTER, OUTPUT, PARSER, MULTILINE_PARSER. */
  readonly kind: string;
  readonly line: number;
  readonly entries: readonly ConfigEntry[];
}

export interface ClassicConfig {
  readonly source: string;
  readonly sections: readonly ConfigSection[];
}

export class ClassicConfigError extends Error {
  override readonly name = 'ClassicConfigError';
}

const SECTION_KINDS = new Set(['SERVICE', 'INPUT', 'FILTER', 'OUTPUT', 'PARSER', 'MULTILINE_PARSER']);

export function parseClassicConfig(text: string, source: string): ClassicConfig {
  const sections: { kind: string; line: number; entries: ConfigEntry[] }[] = [];
  let indent: string | undefined;
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const where = `${source}:${line}`;
    const text = raw.replace(/\r$/, '');
    if (text.trim() === '' || text.trim().startsWith('#')) return;
    if (/^\s*@/.test(text)) throw new ClassicConfigError(`${where}: directive ${text.trim().split(/\s+/)[0]} is not used by this project`);
    const header = /^\[([A-Za-z_]+)\]\s*$/.exec(text);
    if (header) {
      const kind = header[1]!.toUpperCase();
      if (!SECTION_KINDS.has(kind)) throw new ClassicConfigError(`${where}: unknown section [${header[1]}]`);
      sections.push({ kind, line, entries: [] });
      return;
    }
    const entry = /^(\s+)(\S+)(?:\s+(.*?))?\s*$/.exec(text);
    if (!entry) throw new ClassicConfigError(`${where}: entries must be indented under a [SECTION]`);
    const current = sections[sections.length - 1];
    if (!current) throw new ClassicConfigError(`${where}: entry before the first section`);
    const [, space, key, value] = entry;
    if (indent === undefined) indent = space;
    if (space !== indent) throw new ClassicConfigError(`${where}: indentation differs from the first entry of the file`);
    if (value === undefined || value === '') throw new ClassicConfigError(`${where}: ${key} has no value`);
    current.entries.push({ key: key!, value, line });
  });
  for (const section of sections) {
    if (section.kind !== 'SERVICE' && !section.entries.some((e) => e.key.toLowerCase() === 'name')) {
      throw new ClassicConfigError(`${source}:${section.line}: [${section.kind}] without Name`);
    }
  }
  return { source, sections };
}

/** The single value of a key (keys are case-insensitive); undefined when absent, an error when repeated. */
export function property(section: ConfigSection, key: string): string | undefined {
  const values = properties(section, key);
  if (values.length > 1) throw new ClassicConfigError(`[${section.kind}] at line ${section.line} sets ${key} ${values.length} times`);
  return values[0];
}

/** Every value of a repeatable key (Rule, Regex, Exclude), in file order. */
export function properties(section: ConfigSection, key: string): string[] {
  const wanted = key.toLowerCase();
  return section.entries.filter((e) => e.key.toLowerCase() === wanted).map((e) => e.value);
}

export function requiredProperty(section: ConfigSection, key: string): string {
  const value = property(section, key);
  if (value === undefined) throw new ClassicConfigError(`[${section.kind}] at line ${section.line} needs ${key}`);
  return value;
}

export function sectionsOf(config: ClassicConfig, kind: string): ConfigSection[] {
  return config.sections.filter((s) => s.kind === kind);
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Names of the environment variables the configuration references, sorted. */
export function environmentReferences(config: ClassicConfig): string[] {
  const names = new Set<string>();
  for (const section of config.sections) {
    for (const entry of section.entries) {
      for (const match of entry.value.matchAll(ENV_REFERENCE)) names.add(match[1]!);
    }
  }
  return [...names].sort();
}

/**
 * The configuration with every `${VAR}` replaced. Fluent Bit would substitute an empty string for an unset
 * variable and carry on; here that is an error, because an empty Host or Regex is never what was meant.
 */
export function expandEnvironment(config: ClassicConfig, env: Readonly<Record<string, string | undefined>>): ClassicConfig {
  const missing = environmentReferences(config).filter((name) => env[name] === undefined);
  if (missing.length > 0) throw new ClassicConfigError(`${config.source}: environment variables not set: ${missing.join(', ')}`);
  return {
    source: config.source,
    sections: config.sections.map((section) => ({
      ...section,
      entries: section.entries.map((entry) => ({ ...entry, value: entry.value.replace(ENV_REFERENCE, (_, name: string) => env[name] ?? '') })),
    })),
  };
}

/** A boolean setting as Fluent Bit reads it (On, true, yes, 1; anything else is off). */
export function isOn(value: string | undefined): boolean {
  return value !== undefined && /^(on|true|yes|1)$/i.test(value);
}
