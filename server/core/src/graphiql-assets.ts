// The GraphQL UI as a small page and hashed files. @graphql-yoga/render-graphiql inlines every script, style, worker
// and icon into one 9 MB page, which a browser downloads again on every visit. Here the inlined style, script and
// icon move to files named by their content's hash under /q/graphql-ui/assets/, cached for a year (a new version
// of the renderer gives new names), and the page that names them stays a few kilobytes, revalidated by ETag.
import { createHash } from 'node:crypto';

export const GRAPHQL_UI_PATH = '/q/graphql-ui';
export const GRAPHQL_UI_ASSETS_PREFIX = `${GRAPHQL_UI_PATH}/assets/`;

export interface UiFile {
  readonly content: Buffer;
  readonly contentType: string;
}

export interface SplitPage {
  /** The page, naming its files by path. */
  readonly html: string;
  /** File name under the assets prefix → its content. */
  readonly files: ReadonlyMap<string, UiFile>;
}

const INLINE_BLOCK = /<(script|style)>([\s\S]*?)<\/\1>/g;
const DATA_ICON = /<link rel="icon" href="data:([\w/.+-]+);base64,([A-Za-z0-9+/=]+)"\s*\/?>/;
const LARGE = 4096;
const RENDER_CALL = 'YogaGraphiQL.renderYogaGraphiQL(';

/** Moves each large inline block (and a data-URL icon) of `html` into a hashed file; small inline scripts stay. */
export function splitInlinedAssets(html: string): SplitPage {
  const files = new Map<string, UiFile>();
  const withBlocks = html.replace(INLINE_BLOCK, (block, tag: string, body: string) => {
    if (body.length < LARGE) return block;
    if (tag === 'style') return `<link rel="stylesheet" href="${addFile(files, body, 'css', 'text/css; charset=utf-8')}" />`;
    // The page's own call (its options: endpoint, default query) stays inline, so the library's file is the same
    // for every page that uses it.
    const call = body.lastIndexOf(RENDER_CALL);
    const [library, own] = call < 0 ? [body, ''] : [body.slice(0, call), body.slice(call)];
    const script = `<script src="${addFile(files, library, 'js', 'text/javascript; charset=utf-8')}"></script>`;
    return own === '' ? script : `${script}\n      <script>${own}</script>`;
  });
  const page = withBlocks.replace(DATA_ICON, (_link, type: string, base64: string) => {
    const content = Buffer.from(base64, 'base64');
    const name = fileName(content, type === 'image/png' ? 'png' : 'ico');
    files.set(name, { content, contentType: type });
    return `<link rel="icon" href="${GRAPHQL_UI_ASSETS_PREFIX + name}" />`;
  });
  return { html: page, files };
}

/** Adds a file of `content`, returning its path. */
function addFile(files: Map<string, UiFile>, content: string, extension: string, contentType: string): string {
  const name = fileName(content, extension);
  files.set(name, { content: Buffer.from(content, 'utf8'), contentType });
  return GRAPHQL_UI_ASSETS_PREFIX + name;
}

function fileName(content: string | Buffer, extension: string): string {
  return `${createHash('sha256').update(content).digest('base64url').slice(0, 16)}.${extension}`;
}
