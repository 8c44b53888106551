// error.detail has no length bound (PostgreSQL accepts any), but a keyword indexes at most KEYWORD_LIMIT UTF-16 units
// (`ignore_above`, normalized-indices.ts): a longer detail is stored in _source and not indexed. The normalizer marks
// such a document (`error.detail_long: true`) and indexes the detail's head (`error.detail_head`, its first
// KEYWORD_LIMIT units) and the detail in overlapping chunks (`error.detail_chunks`, each at most KEYWORD_LIMIT units,
// consecutive ones sharing at least CHUNK_OVERLAP), never splitting a surrogate pair, so the reader finds and narrows
// them (reader/long-detail-filter.ts) and answers every filter on error.detail as PostgreSQL does.

/** The `ignore_above` of error.detail and of the payload leaves, in UTF-16 units as Lucene counts. */
export const KEYWORD_LIMIT = 8191;

export const DETAIL_LONG_FIELD = 'error.detail_long';
export const DETAIL_HEAD_FIELD = 'error.detail_head';
export const DETAIL_CHUNKS_FIELD = 'error.detail_chunks';

/** Whether a text is longer than a keyword indexes. */
export const beyondKeywordLimit = (text: string): boolean => text.length > KEYWORD_LIMIT;

/** The first KEYWORD_LIMIT UTF-16 units of a text, without a high surrogate cut from its pair. */
export function keywordHead(text: string): string {
  if (text.length <= KEYWORD_LIMIT) return text;
  const last = text.charCodeAt(KEYWORD_LIMIT - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? KEYWORD_LIMIT - 1 : KEYWORD_LIMIT);
}

/** Units consecutive chunks share at least: a text of at most this many units that occurs lies inside one chunk. */
export const CHUNK_OVERLAP = 1024;

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/** The text in chunks of at most KEYWORD_LIMIT units, each starting at least CHUNK_OVERLAP units before the last ended. */
export function keywordChunks(text: string): string[] {
  const chunks: string[] = [];
  for (let start = 0; ; ) {
    let end = Math.min(text.length, start + KEYWORD_LIMIT);
    if (end < text.length && isHigh(text.charCodeAt(end - 1))) end--;
    chunks.push(text.slice(start, end));
    if (end === text.length) return chunks;
    start = end - CHUNK_OVERLAP;
    if (isHigh(text.charCodeAt(start - 1))) start--;
  }
}

/** The fields the normalizer adds to an error whose detail is beyond the keyword limit (none otherwise). */
export function longDetailFields(detail: string | null): { detail_long?: true; detail_head?: string; detail_chunks?: string[] } {
  return detail !== null && beyondKeywordLimit(detail) ? { detail_long: true, detail_head: keywordHead(detail), detail_chunks: keywordChunks(detail) } : {};
}
