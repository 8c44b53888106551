// The README, CONTRIBUTING.md and docs/*.md link to each other by relative paths and #anchors; moving a section
// between them silently breaks such links (GitHub shows no error). Every relative link must name a file that exists
// and, when it has an anchor, a heading of that file under GitHub's slug rule.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/kustomize-render.js';

/** GitHub's heading anchor: lower case, punctuation dropped (hyphens and underscores kept), each space a hyphen. */
function headingSlug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The lines outside fenced code blocks, where links and headings are what they look like. */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').flatMap((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [line];
  });
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

function linkTargets(markdown: string): string[] {
  // A code span shows link syntax without being a link.
  return proseLines(markdown).flatMap((line) => [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!));
}

/** Every broken relative link of one Markdown file, as `target: reason`. */
function brokenLinks(file: string, markdown: string, read: (path: string) => string | undefined): string[] {
  return linkTargets(markdown).flatMap((target) => {
    if (/^[a-z]+:/i.test(target)) return [];
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = path === '' ? file : join(dirname(file), path);
    const text = path === '' ? markdown : read(resolved);
    if (text === undefined) return [`${target}: no file ${resolved}`];
    if (anchor === undefined || !resolved.endsWith('.md')) return [];
    return anchorsOf(text).has(anchor) ? [] : [`${target}: no heading with anchor #${anchor} in ${resolved}`];
  });
}

// A link to a folder is fine (GitHub lists it); it has no headings.
const readRepoFile = (path: string): string | undefined => {
  if (!existsSync(path)) return undefined;
  return statSync(path).isDirectory() ? '' : readFileSync(path, 'utf8');
};
const docs = readdirSync(join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(REPO_ROOT, 'docs', f));
const files = [join(REPO_ROOT, 'README.md'), join(REPO_ROOT, 'CONTRIBUTING.md'), ...docs];

describe('relative links in the README and docs/', () => {
  it('slugs headings as GitHub does', () => {
    expect(headingSlug('No producer line can fail a flush — whatever the forwarder')).toBe('no-producer-line-can-fail-a-flush--whatever-the-forwarder');
    expect(headingSlug('Event identity and order (the rule both backends share)')).toBe('event-identity-and-order-the-rule-both-backends-share');
    expect(headingSlug('Endpoints, metrics and logs')).toBe('endpoints-metrics-and-logs');
    expect(headingSlug('Production: `kustomize/overlays/postgresql`')).toBe('production-kustomizeoverlayspostgresql');
  });

  it('finds a missing file, a missing anchor and a missing local anchor', () => {
    const pages: Record<string, string> = { '/r/docs/a.md': '# A\n\n## Two words\n' };
    const markdown = '# R\n\n## Two words\n\n## Two words\n\n[dup](#two-words-1) `[span](gone.md)` [ok](docs/a.md#two-words) [gone](docs/b.md) [bad](docs/a.md#three) [self](#r) [no](#s) [web](https://example.org/x)\n```\n[code](nowhere.md)\n```\n';
    expect(brokenLinks('/r/README.md', markdown, (p) => pages[p])).toEqual([
      'docs/b.md: no file /r/docs/b.md',
      'docs/a.md#three: no heading with anchor #three in /r/docs/a.md',
      '#s: no heading with anchor #s in /r/README.md',
    ]);
  });

  it.each(files.map((f) => [relative(REPO_ROOT, f), f]))('%s links only to files and headings that exist', (_, file) => {
    expect(brokenLinks(file, readFileSync(file, 'utf8'), readRepoFile)).toEqual([]);
  });
});
