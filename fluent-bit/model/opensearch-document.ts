// The model runs the OpenSearch document rule from its one TypeScript place (server/opensearch, where the bulk writer
// that stands in for Fluent Bit runs it too); the Lua script is fluent-bit/opensearch/opensearch-document.lua.
export { MAX_NAME_BYTES, decodeKey, opensearchDocumentLine } from '@workflow-index/opensearch';
