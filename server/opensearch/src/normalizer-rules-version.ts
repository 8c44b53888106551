// The version of the normalization rules, the one place that says which shape the normalized documents have.
// EVERY change of what a normalized document (instance, task execution, ingest-error record) holds, or of how any
// of it is computed from the events (normalize-instance.ts and everything it calls, the document ids, the task
// states, the payload fields…), bumps RULES_VERSION. The normalizer then re-normalizes every instance of the event
// store in the background (normalizer-renormalize.ts), so documents written by an earlier release take the new shape
// without waiting for their run's next event, also those whose raw events retention already deleted.
// A change of only the reason recorded for events that every version refuses (such as a record without an eventType)
// is no such change: the walk reads the stored events, which were all accepted, and a refused event keeps the record
// written when it arrived, so a bump would walk every run and change nothing.
//
// The files of RULES_SOURCES have a recorded fingerprint (comments and whitespace aside; server/opensearch/
// rules-fingerprint.json), and `npm test` fails when it changes under the same RULES_VERSION
// (server/opensearch/test/normalizer-rules-version.test.ts): bump, then `npm run rules:record`; or, for a change
// that computes the same documents, `npm run rules:record -- --same-results "<why>"`.
//   1  documents written before this version existed (no version recorded in the normalizer-state index)
//   2  task states on the instance (`task_states`, `task_states_complete`); execution ids with '%' and '@' of the task
//      position escaped (execution-ids.ts); superseded markers instead of deleted executions
//   3  the error object of a completed or cancelled task event is bounded as a fault's (raw-event-parse.ts
//      errorObjectProblem): an event beyond the bounds is refused and recorded, where its execution document was
//      refused by the index before (a title over Lucene's 32,766-byte term limit); a payload with an entry longer than
//      the keyword limit, or a key holding a separator, is marked incomplete (json-leaves.ts, json-paths.ts)
//   4  payload numbers canonical in every event identity (canonical-number.ts, as PostgreSQL's 045-event-identity.sql):
//      the double Fluent Bit's printing leaves, in its shortest plain decimal (99.98999999999999 and 99.99 are 99.99,
//      2.0 is 2); an event Fluent Bit re-printed is the event `init-job ingest` or the bulk writer delivered. Payloads
//      are served as the first delivery printed them (the store keeps it; a later spelling is a duplicate)
export const RULES_VERSION = 4;

/**
 * The rules (repository paths): the pure computation from stored events to documents, and the document types.
 * The test walks the modules the computation imports (from RULES_ROOT, through value imports) and fails on any
 * module that is neither here nor in NOT_RULES.
 */
export const RULES_SOURCES: readonly string[] = [
  'server/opensearch/src/normalize-instance.ts',
  'server/opensearch/src/raw-event-parse.ts',
  'server/opensearch/src/execution-ids.ts',
  'server/opensearch/src/task-states.ts',
  'server/opensearch/src/json-leaves.ts',
  'server/opensearch/src/json-paths.ts',
  'server/opensearch/src/long-detail.ts',
  'server/opensearch/src/workflow-instance-document.ts',
  'server/opensearch/src/task-execution-document.ts',
  'server/events/src/event-grammar.ts',
  'server/events/src/event-time.ts',
  'server/events/src/event-identity.ts',
  'server/events/src/canonical-number.ts',
  'server/events/src/postgresql-hash.ts',
  'server/events/src/jsonb-text.ts',
  'server/events/src/jsonb-order.ts',
  'server/events/src/lossless-json.ts',
  'server/events/src/fluent-bit-double.ts',
];

/** Where the computation a cycle and the re-normalization walk both run begins (recomputeStoredInstances). */
export const RULES_ROOT = 'server/opensearch/src/normalizer-recompute.ts';

/** Modules the computation imports that are not rules, and why a change there needs no new version. */
export const NOT_RULES: Readonly<Record<string, string>> = {
  'server/opensearch/src/normalizer-recompute.ts':
    'reads the event store and writes the documents; the few shapes it writes itself (superseded markers, the hashed _id of ids over 512 bytes, ingest-error records) are not fingerprinted: a change to them bumps RULES_VERSION by judgement',
  'server/opensearch/src/event-store.ts':
    'the event store (identity, kept spelling): the walk reads it and never rewrites it, so a new version cannot apply a change there',
  'server/opensearch/src/raw-event-source.ts': 'reads raw indices, which the walk never reads',
  'server/opensearch/src/raw-index-templates.ts': 'the raw indices\' templates, which the walk never reads',
  'server/opensearch/src/raw-event-pipeline.ts': 'the raw indices\' ingest pipeline, which the walk never reads',
  'server/opensearch/src/index-layout.ts': 'the shards and replicas of the indices: where documents are kept, never what they hold',
  'server/events/src/json-text-fault.ts':
    'the reason recorded for a text that is not JSON: every version refuses such events, and the walk reads only stored (accepted) ones',
  'server/events/src/event-line-repair.ts': 'the writers\' line repair (json-text-fault.ts reads its nesting bound): stored events were repaired when written',
};
