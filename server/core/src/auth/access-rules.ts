// AUTHZ_RULES_FILE: which groups see which namespaces, and whether they see payloads (CONTRACT §8). YAML or JSON:
// `{"rules": [{"group": "team-shop", "namespaces": ["org.acme.shop", "org.acme.*"], "payloads": false}, …]}`.
// `*` in a namespace pattern matches any run of characters; `*` alone matches every namespace, none included.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface AccessRule {
  readonly group: string;
  readonly namespaces: readonly string[];
  readonly payloads: boolean;
}

/** Reads and checks the rules file; every problem is returned (the caller reports them with the rest of the configuration). */
export function readAccessRules(file: string): { readonly rules: readonly AccessRule[]; readonly problems: readonly string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { rules: [], problems: [`AUTHZ_RULES_FILE ${JSON.stringify(file)} cannot be read: ${(error as Error).message}`] };
  }
  let document: unknown;
  try {
    // YAML 1.2 is a superset of JSON: one parser reads both.
    document = parseYaml(text, { prettyErrors: false, maxAliasCount: 100 });
  } catch (error) {
    return { rules: [], problems: [`AUTHZ_RULES_FILE ${JSON.stringify(file)} is neither YAML nor JSON: ${(error as Error).message}`] };
  }
  return parseAccessRules(document, `AUTHZ_RULES_FILE ${JSON.stringify(file)}`);
}

export function parseAccessRules(document: unknown, where: string): { readonly rules: readonly AccessRule[]; readonly problems: readonly string[] } {
  const list = isRecord(document) ? document['rules'] : undefined;
  if (!Array.isArray(list)) return { rules: [], problems: [`${where} must be an object with a "rules" list`] };
  const problems: string[] = [];
  const rules: AccessRule[] = [];
  list.forEach((entry: unknown, index) => {
    const rule = parseRule(entry, `${where}: rules[${index}]`, problems);
    if (rule !== null) rules.push(rule);
  });
  return { rules, problems };
}

function parseRule(entry: unknown, where: string, problems: string[]): AccessRule | null {
  if (!isRecord(entry)) {
    problems.push(`${where} must be an object with group, namespaces and payloads`);
    return null;
  }
  const before = problems.length;
  const unknownKeys = Object.keys(entry).filter((key) => key !== 'group' && key !== 'namespaces' && key !== 'payloads');
  if (unknownKeys.length > 0) problems.push(`${where} has unknown keys ${unknownKeys.join(', ')} (allowed: group, namespaces, payloads)`);
  const { group, namespaces, payloads = false } = entry;
  if (typeof group !== 'string' || group === '') problems.push(`${where}.group must be a non-empty string`);
  if (!Array.isArray(namespaces) || namespaces.length === 0 || !namespaces.every((n) => typeof n === 'string' && n !== '')) {
    problems.push(`${where}.namespaces must be a non-empty list of namespace patterns such as "org.acme.shop", "org.acme.*" or "*"`);
  }
  if (typeof payloads !== 'boolean') problems.push(`${where}.payloads must be true or false`);
  if (problems.length > before) return null;
  return { group: group as string, namespaces: [...(namespaces as string[])], payloads: payloads as boolean };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
