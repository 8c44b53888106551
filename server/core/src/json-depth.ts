// How deeply a parsed JSON value nests, found without recursion: graphql-js coerces variables recursively,
// so `{"not": {"not": …}}` 10,000 levels deep overflowed the stack before any of our checks could run.

/** True when `value` has arrays/objects nested more than `max` levels deep (a scalar is depth 0). */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: { readonly value: unknown; readonly depth: number }[] = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > max) return true;
    for (const inner of Array.isArray(item.value) ? item.value : Object.values(item.value)) {
      if (inner !== null && typeof inner === 'object') stack.push({ value: inner, depth });
    }
  }
  return false;
}
