import { list } from '../blocks.js';
import type { Section } from '../blocks.js';

export const VALUES_SERVED: Section = {
  id: 'values',
  title: 'Values served',
  blocks: [
    list([
      `Times: ISO-8601 UTC with a trailing <code>Z</code>; fractional seconds up to microseconds, trailing zeros trimmed and
omitted when zero (<code>2026-05-12T09:14:03.512378Z</code>, <code>…:29.5Z</code>, <code>…:55:00Z</code>); never rounded to milliseconds.`,
      'Payloads (<code>inputData</code>, <code>outputData</code>): JSON text, parse it on the client; <code>null</code> when absent.',
      '<code>errorMessage</code> (deprecated): the error title, or the detail when there is no title.',
      'Instances whose <code>workflow.started</code> event has not arrived yet are not served, nor are their tasks.',
    ]),
  ],
};
