import { createHash } from 'node:crypto';
import { compress, negotiateEncoding } from './compression.js';
import type { Encoding } from './compression.js';

/** For files named by their content's hash: a new content gets a new name, so browsers may keep them a year. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface StaticAssetOptions {
  /** Default `no-cache`: browsers keep the body and revalidate it with If-None-Match (a 304 costs no body). */
  readonly cacheControl?: string;
  /** Extra response headers (CSP of the console page, …). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A fixed response body (the GraphQL UI's script is about 8 MB): compressed once per
 * encoding on first use instead of on every request, with a strong ETag of its content so a browser that has it
 * gets 304 Not Modified instead of the body again.
 */
export class StaticAsset {
  private readonly body: Buffer;
  private readonly variants = new Map<Encoding, Promise<Buffer>>();
  readonly etag: string;

  constructor(
    content: string | Uint8Array,
    private readonly contentType: string,
    private readonly options: StaticAssetOptions = {},
  ) {
    this.body = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    this.etag = `"${createHash('sha256').update(this.body).digest('base64url').slice(0, 27)}"`;
  }

  async respond(request: Request, compression: boolean): Promise<Response> {
    const headers = new Headers({ 'Content-Type': this.contentType, 'Cache-Control': this.options.cacheControl ?? 'no-cache', ...this.options.headers });
    const encoding = compression ? negotiateEncoding(request.headers.get('accept-encoding')) : null;
    if (compression) headers.set('Vary', 'Accept-Encoding');
    // One ETag for every encoding: the representations differ only in Content-Encoding, which Vary covers, and
    // a weak comparison (RFC 9110 §13.1.2) is what If-None-Match uses.
    headers.set('ETag', this.etag);
    if (matches(request.headers.get('if-none-match'), this.etag)) return new Response(null, { status: 304, headers });
    let body: Buffer = this.body;
    if (encoding !== null) {
      let variant = this.variants.get(encoding);
      if (variant === undefined) {
        variant = compress(this.body, encoding);
        this.variants.set(encoding, variant);
      }
      body = await variant;
      headers.set('Content-Encoding', encoding);
    }
    headers.set('Content-Length', String(body.byteLength));
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
  }
}

/** If-None-Match: `*` or a list of (possibly weak) entity tags. */
function matches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
