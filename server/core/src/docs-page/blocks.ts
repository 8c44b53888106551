// The building blocks of the /docs page's sections: hand-written paragraphs (HTML), subheadings, lists, tables whose
// cells are prose, and runnable examples. A section is its heading and its blocks, one per line.
import { esc, prose } from './html.js';

export interface Example {
  readonly title: string;
  readonly query: string;
  readonly variables?: Record<string, unknown>;
}

export type Block =
  | { readonly kind: 'paragraph'; readonly html: string }
  | { readonly kind: 'subheading'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly string[] }
  | { readonly kind: 'table'; readonly head: readonly string[]; readonly rows: readonly (readonly string[])[] }
  | ({ readonly kind: 'example' } & Example);

export interface Section {
  /** The anchor of the section (`#id`). */
  readonly id: string;
  readonly title: string;
  /** Its label in the navigation bar; a section without one is not linked there. */
  readonly nav?: string;
  readonly blocks: readonly Block[];
}

/** `html`: written as HTML (links, entities, code spans). */
export const paragraph = (html: string): Block => ({ kind: 'paragraph', html });
export const subheading = (text: string): Block => ({ kind: 'subheading', text });
/** `items`: written as HTML. */
export const list = (items: readonly string[]): Block => ({ kind: 'list', items });
/** `rows`: prose cells (escaped, `code` spans). */
export const table = (head: readonly string[], rows: readonly (readonly string[])[]): Block => ({ kind: 'table', head, rows });
export const example = (title: string, query: string, variables?: Record<string, unknown>): Block => ({ kind: 'example', title, query, variables });

export function renderSection(section: Section): string {
  return `\n<h2 id="${section.id}">${esc(section.title)}</h2>\n${section.blocks.map(renderBlock).join('\n')}`;
}

function renderBlock(block: Block): string {
  switch (block.kind) {
    case 'paragraph':
      return `<p>${block.html}</p>`;
    case 'subheading':
      return `<h3>${esc(block.text)}</h3>`;
    case 'list':
      return `<ul>\n${block.items.map((item) => `<li>${item}</li>`).join('\n')}\n</ul>`;
    case 'table':
      return renderTable(block.head, block.rows);
    case 'example':
      return renderExample(block);
  }
}

function renderTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const headRow = head.map((cell) => `<th>${esc(cell)}</th>`).join('');
  const bodyRows = rows.map((row) => `<tr>${row.map((cell) => `<td>${prose(cell)}</td>`).join('')}</tr>`);
  return `<table><thead><tr>${headRow}</tr></thead><tbody>\n${bodyRows.join('\n')}\n</tbody></table>`;
}

function renderExample({ title, query, variables }: Example): string {
  const text = query.trim();
  const vars = variables === undefined ? '' : `<div class="vars">variables</div><pre>${esc(JSON.stringify(variables, null, 2))}</pre>`;
  // GraphiQL opens the query of its ?query= parameter; it takes no variables from the URL.
  const run = `<a class="run-in-ui" href="/q/graphql-ui?query=${esc(encodeURIComponent(text))}">run in the UI</a>${variables === undefined ? '' : ' (then paste the variables into its Variables pane)'}`;
  return `<div class="example"><div class="ex-title">${prose(title)}</div><pre>${esc(text)}</pre>${vars}<div class="run">${run}</div></div>`;
}
