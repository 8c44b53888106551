// Code blocks of the docs that tests run as written: a block is marked by `<!-- snippet: <id> -->` on the line
// before its opening fence (indented like the fence when the block sits in a list item).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './kustomize-render.js';

/** The text of the fenced block marked `<!-- snippet: id -->` in a markdown file (relative to the repo root), dedented. */
export function docSnippet(file: string, id: string): string {
  const lines = readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
  const marks = lines.flatMap((line, i) => (line.trim() === `<!-- snippet: ${id} -->` ? [i] : []));
  if (marks.length !== 1) throw new Error(`${file}: ${marks.length} snippets named ${id}, expected 1`);
  const open = lines[marks[0]! + 1] ?? '';
  const fence = /^(\s*)```/.exec(open);
  if (!fence) throw new Error(`${file}: snippet ${id} is not followed by a fenced block`);
  const indent = fence[1]!;
  const body: string[] = [];
  for (const line of lines.slice(marks[0]! + 2)) {
    if (line.trim() === '```') return `${body.join('\n')}\n`;
    if (line.trim() !== '' && !line.startsWith(indent)) throw new Error(`${file}: snippet ${id} leaves its indentation: ${line}`);
    body.push(line.slice(indent.length));
  }
  throw new Error(`${file}: snippet ${id} has no closing fence`);
}
