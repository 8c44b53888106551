import { compress, negotiateEncoding } from './compression.js';
import type { Encoding } from './compression.js';

/**
 * A fixed response body (the GraphQL UI is about 9 MB of inlined script): compressed once per
 * encoding on first use instead of on every request.
 */
export class StaticAsset {
  private readonly body: Buffer;
  private readonly variants = new Map<Encoding, Promise<Buffer>>();

  constructor(
    content: string,
    private readonly contentType: string,
  ) {
    this.body = Buffer.from(content, 'utf8');
  }

  async respond(request: Request, compression: boolean): Promise<Response> {
    const headers = new Headers({ 'Content-Type': this.contentType, 'Cache-Control': 'no-cache' });
    const encoding = compression ? negotiateEncoding(request.headers.get('accept-encoding')) : null;
    if (compression) headers.set('Vary', 'Accept-Encoding');
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
