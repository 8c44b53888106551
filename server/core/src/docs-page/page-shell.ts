// The frame of the /docs page: head and style (self-contained: no external resources), the navigation bar built
// from the sections, and the introduction.
import { renderSection } from './blocks.js';
import type { Section } from './blocks.js';
import { esc } from './html.js';

const HEAD = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Workflow Index — API documentation</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
main{max-width:980px;margin:0 auto;padding:24px 32px 64px}
nav{position:sticky;top:0;background:#1d2330;padding:10px 32px}nav a{color:#e8ecf4;margin-right:16px;text-decoration:none;font-size:14px}
h1{margin-top:8px}h2{border-bottom:1px solid #d8dde6;padding-bottom:4px;margin-top:40px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{background:#f0f2f6;padding:10px 12px;border-radius:6px;overflow-x:auto;margin:4px 0 12px}
table{border-collapse:collapse;width:100%;margin:8px 0 16px}td,th{border:1px solid #d8dde6;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#eef1f6}.example{margin:10px 0}.ex-title{font-weight:600}.vars{font-size:12px;color:#5a6478}
.deprecated{color:#a3461b}.args{margin:4px 0 0;padding-left:18px}section.type h3{margin-bottom:2px}
</style></head>`;

const INTRODUCTION = `<h1>Workflow Index API</h1>
<p>Read-only GraphQL over the execution history of Serverless Workflow applications: workflow instances and their task
executions, normalized from the lifecycle events the workflow runtime prints. The examples use the demo data
(namespaces <code>com.acme.orders</code> and <code>com.acme.billing</code>; workflows <code>order-intake</code>,
<code>payment-capture</code>, <code>customer-notify</code>, <code>order-fulfilment</code>, <code>ledger-sync</code>,
<code>address-normalizer</code>, <code>manual-review</code>).</p>`;

/** Links after the sections': the schema reference, then the GraphQL UI. */
const TRAILING_LINKS = [
  { href: '#reference', label: 'Schema' },
  { href: '/q/graphql-ui', label: 'GraphQL UI' },
];

/** The page: the sections, then `reference` (the schema reference, linked as #reference). */
export function renderPage(sections: readonly Section[], reference: string): string {
  return `${HEAD}
<body>${navigation(sections)}
<main>
${INTRODUCTION}
${sections.map(renderSection).join('\n')}
${reference}
</main></body></html>
`;
}

function navigation(sections: readonly Section[]): string {
  const links = sections.flatMap((s) => (s.nav === undefined ? [] : [{ href: `#${s.id}`, label: s.nav }]));
  return `<nav>${[...links, ...TRAILING_LINKS].map((l) => `<a href="${l.href}">${esc(l.label)}</a>`).join('')}</nav>`;
}
