// A small Dockerfile reader for policy tests: instructions with line continuations joined, stages with their
// base and name, ARG defaults substituted into FROM, JSON-form arguments decoded; and a .dockerignore matcher.

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

export interface Stage {
  readonly name: string | undefined;
  readonly base: string;
  readonly instructions: readonly Instruction[];
}

export interface Dockerfile {
  readonly globalArgs: Readonly<Record<string, string>>;
  readonly stages: readonly Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i]!;
    if (/^\s*(#|$)/.test(line)) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) {
      i++;
      if (/^\s*#/.test(lines[i]!)) continue;
      line = `${line.slice(0, -1)} ${lines[i]!.trim()}`;
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`Dockerfile line ${start + 1}: cannot read ${line}`);
    instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: start + 1 });
  }
  const globalArgs: Record<string, string> = {};
  const stages: { name: string | undefined; base: string; instructions: Instruction[] }[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`Dockerfile line ${ins.line}: cannot read FROM ${ins.args}`);
      const base = m[1]!.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => globalArgs[(a ?? b)!] ?? '');
      stages.push({ name: m[2], base, instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword !== 'ARG') throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} before FROM`);
      const [name, value] = ins.args.split('=', 2) as [string, string | undefined];
      globalArgs[name] = value ?? '';
    } else {
      stages[stages.length - 1]!.instructions.push(ins);
    }
  }
  return { globalArgs, stages };
}

export function stage(file: Dockerfile, name: string): Stage {
  const found = file.stages.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
}

/** The stage and the stages it is built FROM, nearest first. */
export function lineage(file: Dockerfile, name: string): Stage[] {
  const chain: Stage[] = [];
  let current: Stage | undefined = stage(file, name);
  while (current) {
    chain.push(current);
    const base: string = current.base;
    current = file.stages.find((s) => s.name === base);
  }
  return chain;
}

/** The last value of an image setting (USER, CMD, ...) along a stage's lineage. */
export function effective(file: Dockerfile, target: string, keyword: string): Instruction | undefined {
  for (const s of lineage(file, target)) {
    const found = [...s.instructions].reverse().find((i) => i.keyword === keyword);
    if (found) return found;
  }
  return undefined;
}

export function all(file: Dockerfile, target: string, keyword: string): Instruction[] {
  return lineage(file, target).reverse().flatMap((s) => s.instructions.filter((i) => i.keyword === keyword));
}

export function jsonArgs(instruction: Instruction | undefined): string[] | undefined {
  if (!instruction) return undefined;
  const value: unknown = JSON.parse(instruction.args);
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new Error(`line ${instruction.line}: not a JSON string array`);
  return value as string[];
}

export interface Copy {
  readonly from: string | undefined;
  readonly sources: readonly string[];
  readonly destination: string;
  readonly line: number;
}

export function copies(s: Stage): Copy[] {
  return s.instructions.filter((i) => i.keyword === 'COPY').map((i) => {
    const tokens = i.args.split(/\s+/);
    const flags = tokens.filter((t) => t.startsWith('--'));
    const paths = tokens.filter((t) => !t.startsWith('--'));
    const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
    return { from, sources: paths.slice(0, -1), destination: paths[paths.length - 1]!, line: i.line };
  });
}

/** Environment variables an ENV instruction sets (`ENV A=1 B=2`, continuation lines already joined). */
export function envOf(instructions: readonly Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of instructions.filter((x) => x.keyword === 'ENV')) {
    for (const m of i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  }
  return env;
}

/** .dockerignore semantics (moby/patternmatcher): patterns from the context root, `**` any depth, `!` re-includes. */
export function dockerIgnore(text: string): (path: string) => boolean {
  const rules = text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).map((raw) => {
    const negate = raw.startsWith('!');
    const pattern = (negate ? raw.slice(1) : raw).replace(/^\/+/, '').replace(/\/+$/, '');
    let re = '';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i]!;
      if (c === '*' && pattern[i + 1] === '*') {
        re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
        i += pattern[i + 2] === '/' ? 2 : 1;
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    // A pattern matching a directory excludes everything below it.
    return { negate, regex: new RegExp(`^${re}(?:/.*)?$`) };
  });
  return (path) => {
    let excluded = false;
    for (const r of rules) if (r.regex.test(path)) excluded = !r.negate;
    return excluded;
  };
}
