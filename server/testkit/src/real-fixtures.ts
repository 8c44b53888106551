// What a real Quarkus Flow application printed (../shared/fixtures/real/<format>/, see its README), loaded byte
// for byte. The shared folder lives beside the repository (CI clones the repository with `shared` next to it),
// so it is resolved as <repo>/../shared; WI_SHARED_DIR overrides that for other layouts.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Event } from './event-rows.js';

export const REAL_FORMATS = ['epoch-seconds', 'iso8601'] as const;
export type RealFormat = (typeof REAL_FORMATS)[number];

const REPO_ROOT = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
export const SHARED_DIR = process.env['WI_SHARED_DIR'] ? resolve(process.env['WI_SHARED_DIR']) : resolve(REPO_ROOT, '..', 'shared');

export interface RealInstance {
  readonly label: string;
  readonly workflow: string;
  readonly instanceId: string;
}

/** One line of outcomes.jsonl: what the runtime itself reported at the end. */
export interface RealOutcome {
  readonly id: string;
  readonly workflow: string;
  readonly label: string;
  readonly status: string;
  readonly done: boolean;
  readonly outcome: string | null;
  readonly error: string | null;
}

export interface RealFixture {
  readonly format: RealFormat;
  readonly dir: string;
  /** events.jsonl, one entry per line, exactly as printed (no line terminator). */
  readonly eventLines: readonly string[];
  /** The same lines parsed (for oracles and generators; never for writing, which must use the bytes). */
  readonly events: readonly Event[];
  /** stdout.log as bytes: banner, log lines with stack traces, one JSON log line without eventType, the events. */
  readonly stdout: Buffer;
  /** stdout.log split into lines (without terminators). */
  readonly stdoutLines: readonly string[];
  readonly instances: readonly RealInstance[];
  readonly outcomes: readonly RealOutcome[];
  /** Absolute path of a file of this fixture. */
  path(file: string): string;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const cache = new Map<RealFormat, RealFixture>();

export function realFixture(format: RealFormat): RealFixture {
  const cached = cache.get(format);
  if (cached) return cached;
  const dir = join(SHARED_DIR, 'fixtures', 'real', format);
  const required = ['events.jsonl', 'stdout.log', 'manifest.tsv', 'outcomes.jsonl'];
  const missing = required.filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) {
    throw new Error(
      `real producer fixtures missing: ${missing.map((f) => join(dir, f)).join(', ')}. ` +
        `The tests read them from <repo>/../shared/fixtures/real/${format}/ (clone the shared folder beside the ` +
        `repository, as CI does, or set WI_SHARED_DIR to its location).`,
    );
  }
  const eventLines = splitLines(readFileSync(join(dir, 'events.jsonl'), 'utf8'));
  const stdout = readFileSync(join(dir, 'stdout.log'));
  const [header, ...rows] = splitLines(readFileSync(join(dir, 'manifest.tsv'), 'utf8'));
  if (header !== 'label\tworkflow\tinstanceId') throw new Error(`${join(dir, 'manifest.tsv')}: unexpected header ${header}`);
  const fixture: RealFixture = {
    format,
    dir,
    eventLines,
    events: eventLines.map((l) => JSON.parse(l) as Event),
    stdout,
    stdoutLines: splitLines(stdout.toString('utf8')),
    instances: rows.map((r) => {
      const [label = '', workflow = '', instanceId = ''] = r.split('\t');
      return { label, workflow, instanceId };
    }),
    outcomes: splitLines(readFileSync(join(dir, 'outcomes.jsonl'), 'utf8')).map((l) => JSON.parse(l) as RealOutcome),
    path: (file) => join(dir, file),
  };
  cache.set(format, fixture);
  return fixture;
}

export function instanceIdOf(fixture: RealFixture, label: string): string {
  const found = fixture.instances.find((i) => i.label === label);
  if (!found) throw new Error(`no instance labelled ${label} in ${fixture.dir}`);
  return found.instanceId;
}
