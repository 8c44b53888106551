// Text into the /docs page's HTML: everything is escaped; descriptions and table cells may use `code` spans.

export function esc(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Escaped text whose `code` spans become <code>. */
export function prose(value: string | null | undefined): string {
  return esc(value ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');
}
