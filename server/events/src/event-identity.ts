// A task event's identity within its (instance, position, time, kind), computed exactly as PostgreSQL's
// 045-event-identity.sql does: task name, status, input, output and error, payloads as the jsonb text of their
// canonical form (canonical-number.ts: numbers as the double Fluent Bit's printing leaves, so its %.16g re-print is the
// same event), hashed with hashtextextended. The record time, `@timestamp` and forwarder fields never count.
import { hashTextExtended } from './postgresql-hash.js';

/** canonical_json_text: a payload's identity text (undefined for absent or JSON null); given the jsonb text of the
 * payload's canonicalJson (the caller canonicalizes the parsed value: the served payload stays as delivered). */
export function canonicalJsonText(text: string | undefined): string | undefined {
  return text === undefined || text === 'null' ? undefined : text;
}

export interface TaskIdentityFields {
  readonly taskName: string;
  readonly status: string | undefined;
  /** jsonb text of the event's input / output / error (undefined when absent). */
  readonly inputText: string | undefined;
  readonly outputText: string | undefined;
  readonly errorText: string | undefined;
}

/** task_event_content_hash. */
export function taskEventContentHash(f: TaskIdentityFields): bigint {
  const absent = '\u001e';
  const sep = '\u001f';
  const error = f.errorText === undefined || f.errorText === 'null' ? absent : f.errorText;
  return hashTextExtended(
    `${f.taskName}${sep}${f.status ?? absent}${sep}${canonicalJsonText(f.inputText) ?? absent}${sep}${canonicalJsonText(f.outputText) ?? absent}${sep}${error}`,
  );
}
