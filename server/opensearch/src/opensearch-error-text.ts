// What an operator reads in the normalizer's logs and status when a request to OpenSearch fails: the HTTP status,
// the request, and the node's reason. The client's own message is only the reason, and for an answer without a
// JSON error body (a 403 or 503 from the security plugin or a proxy in front of the cluster) just "Response Error".
import { errors } from '@opensearch-project/opensearch';

export function openSearchErrorText(error: unknown): string {
  if (error instanceof errors.ResponseError) {
    const params = (error.meta.meta as { request?: { params?: { method?: string; path?: string } } } | undefined)?.request?.params;
    const request = params?.method !== undefined && params.path !== undefined ? ` on ${params.method} ${params.path}` : '';
    const reason = error.message === 'Response Error' ? 'no error body' : error.message;
    return `HTTP ${String(error.meta.statusCode)}${request}: ${reason}`;
  }
  return error instanceof Error ? error.message : String(error);
}
