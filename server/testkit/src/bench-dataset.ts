// The population of the benchmarks and of the tests that measure plans and bounds at scale, the same on both backends:
// instance g (1-based) is `bench-` and g padded to 8 digits; its status follows g % 20 and its namespace (g / 20) % 10
// (independent, so every status x namespace page is populated); 17 names; starts spread over SPAN_SECONDS from
// BASE_TIME; a customer in the input and a coupon in one run of 50; durations of 1.5 to 4.5 s with a slow tail of 1 %
// taking 30 to 60 s. Each backend writes it its own way (its test support's bench-dataset.ts).

export const SPAN_SECONDS = 30 * 24 * 3600; // the generated instances start over 30 days
export const BASE_TIME = Date.parse('2026-04-01T00:00:00Z');
export const NAMESPACES = 10;
export const TASK_NAMES = ['validate', 'reserve', 'price', 'charge', 'invoice', 'pack', 'ship', 'notify', 'archive', 'close'];
export const STATUSES = ['COMPLETED', 'RUNNING', 'FAULTED', 'CANCELLED'] as const;
export const CUSTOMERS = 5000;

/** Instance ids are `bench-` and the 1-based number padded to 8 digits. */
export const benchInstanceId = (n: number): string => `bench-${String(n).padStart(8, '0')}`;
