/** Event lines as deliveries one millisecond apart from `firstRecordTimeMs`: the record time a forwarder stamps. */
export function withRecordTimes(lines: readonly string[], firstRecordTimeMs: number): { line: string; recordTimeMs: number }[] {
  return lines.map((line, i) => ({ line, recordTimeMs: firstRecordTimeMs + i }));
}
