// The version of the normalization rules, the one place that says which shape the normalized documents have.
// EVERY change of what a normalized document (instance, task execution, ingest-error record) holds, or of how any
// of it is computed from the events (normalize-instance.ts and everything it calls, the document ids, the task
// states, the payload fields…), bumps RULES_VERSION. The normalizer then re-normalizes every instance of the event
// store in the background (normalizer-renormalize.ts), so documents written by an earlier release take the new shape
// without waiting for their run's next event, also those whose raw events retention already deleted.
// A change of only the reason recorded for events that every version refuses (such as a record without an eventType)
// is no such change: the walk reads the stored events, which were all accepted, and a refused event keeps the record
// written when it arrived, so a bump would walk every run and change nothing.
//   1  documents written before this version existed (no version recorded in the normalizer-state index)
//   2  task states on the instance (`task_states`, `task_states_complete`); execution ids with '%' and '@' of the task
//      position escaped (execution-ids.ts); superseded markers instead of deleted executions
//   3  the error object of a completed or cancelled task event is bounded as a fault's (raw-event-parse.ts
//      errorObjectProblem): an event beyond the bounds is refused and recorded, where its execution document was
//      refused by the index before (a title over Lucene's 32,766-byte term limit); a payload with an entry longer than
//      the keyword limit, or a key holding a separator, is marked incomplete (json-leaves.ts, json-paths.ts)
export const RULES_VERSION = 3;
