// An OTLP/HTTP trace receiver for the tracing tests of both servers: a plain node:http server that collects every span
// POSTed to /v1/traces in the JSON encoding.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpAttribute { key: string; value: { stringValue?: string; intValue?: string | number; arrayValue?: { values: Array<{ stringValue?: string }> } } }
export interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[]; status?: { code?: number } }
interface OtlpExport { resourceSpans: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> }

/** An OTLP/HTTP trace receiver: collects every span POSTed to /v1/traces (JSON encoding). */
export class OtlpReceiver {
  readonly spans: OtlpSpan[] = [];
  readonly serviceNames = new Set<string>();
  readonly contentTypes = new Set<string>();
  readonly #server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      this.contentTypes.add(String(request.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
      for (const resourceSpans of body.resourceSpans) {
        const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
        if (service !== undefined) this.serviceNames.add(service);
        for (const scope of resourceSpans.scopeSpans) this.spans.push(...scope.spans);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async waitFor(predicate: (spans: readonly OtlpSpan[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.spans)) {
      if (Date.now() > deadline) throw new Error(`spans not received within ${timeoutMs} ms; got ${JSON.stringify(this.spans.map((s) => s.name))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export const attribute = (span: OtlpSpan, key: string): OtlpAttribute['value'] | undefined => span.attributes?.find((a) => a.key === key)?.value;
