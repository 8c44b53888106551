// The ingest pipeline every raw event passes (the raw templates' `index.default_pipeline`). The events' own time
// fields cannot be mapped as `date`: no date format accepts every form producers print, and several store wrong
// instants silently (epoch millis read as seconds, `1.778577243512337E9` rejected, `…T09:14Z` refused by
// date_nanos). So the raw fields stay unmapped in `_source`, exactly as sent, and this pipeline derives exact
// epoch-microsecond `long`s by the CONTRACT's rule (the same rule as PostgreSQL's parse_event_time):
//   a number, or a numeric string: |n| < 1e11 seconds, < 1e14 milliseconds, < 1e17 microseconds, < 1e25
//   nanoseconds; other strings are ISO-8601 with an offset (`Z`, `±hh`, `±hhmm`, `±hh:mm`; seconds and up to 12
//   fraction digits optional); rounded half-to-even to microseconds with exact decimal arithmetic.
// A value it cannot read is recorded in `wi.errors` and the document is kept: one bad event must never make
// Fluent Bit's bulk item fail (the item would be retried and dropped, and the event lost without a trace).
// Derived data lives under the one object `wi`; the event's own fields are never rewritten.

/** Event field → derived µs field under `wi`. */
export const RAW_TIME_FIELDS = {
  timestamp: 'timestamp_us',
  startTime: 'start_time_us',
  endTime: 'end_time_us',
  lastUpdateTime: 'last_update_time_us',
} as const;

/** Longest instance id PostgreSQL accepts (bytes), so both backends refuse the same events. */
export const MAX_INSTANCE_ID_BYTES = 255;

// Painless: no regexes (they are off or limited by default), constructors picked by argument count only, no
// `\u` escapes in literals. Java numbers arrive as Integer/Long/BigInteger/Double: a Double is read back through
// Double.toString, which on the JDK 19+ node prints the shortest decimal that round-trips, i.e. what the
// producer (Java's Double.toString) or Fluent Bit (%.16g) printed.
const CONVERSION_SCRIPT = `
boolean isDigit(char c) { return c >= (char) 48 && c <= (char) 57; }

int digits(String s, int from, int count) {
  if (from + count > s.length()) { throw new IllegalArgumentException('not a number or an ISO-8601 time with an offset'); }
  int n = 0;
  for (int i = from; i < from + count; i++) {
    char c = s.charAt(i);
    if (!isDigit(c)) { throw new IllegalArgumentException('not a number or an ISO-8601 time with an offset'); }
    n = n * 10 + (c - (char) 48);
  }
  return n;
}

boolean isNumeric(String s) {
  int i = 0;
  int n = s.length();
  if (i < n && (s.charAt(i) == (char) 43 || s.charAt(i) == (char) 45)) { i++; }
  int intDigits = 0;
  while (i < n && isDigit(s.charAt(i))) { i++; intDigits++; }
  int fracDigits = 0;
  boolean dot = false;
  if (i < n && s.charAt(i) == (char) 46) {
    dot = true;
    i++;
    while (i < n && isDigit(s.charAt(i))) { i++; fracDigits++; }
  }
  if (intDigits > 30 || fracDigits > 30) { return false; }
  if (intDigits == 0 && (fracDigits == 0 || !dot)) { return false; }
  if (i < n && (s.charAt(i) == (char) 101 || s.charAt(i) == (char) 69)) {
    i++;
    if (i < n && (s.charAt(i) == (char) 43 || s.charAt(i) == (char) 45)) { i++; }
    int expDigits = 0;
    while (i < n && isDigit(s.charAt(i))) { i++; expDigits++; }
    if (expDigits < 1 || expDigits > 3) { return false; }
  }
  return i == n;
}

long checkedMicros(BigDecimal us) {
  if (us.abs().compareTo(new BigDecimal('9E15')) > 0) { throw new IllegalArgumentException('outside the supported time range'); }
  return us.setScale(0, RoundingMode.HALF_EVEN).longValueExact();
}

long epochMicros(BigDecimal n) {
  BigDecimal a = n.abs();
  if (a.compareTo(new BigDecimal('1E11')) < 0) { return checkedMicros(n.movePointRight(6)); }
  if (a.compareTo(new BigDecimal('1E14')) < 0) { return checkedMicros(n.movePointRight(3)); }
  if (a.compareTo(new BigDecimal('1E17')) < 0) { return checkedMicros(n); }
  if (a.compareTo(new BigDecimal('1E25')) < 0) { return checkedMicros(n.movePointLeft(3)); }
  throw new IllegalArgumentException('outside the supported time range');
}

long isoMicros(String s) {
  String bad = 'not a number or an ISO-8601 time with an offset';
  int n = s.length();
  if (n < 17) { throw new IllegalArgumentException(bad); }
  int year = digits(s, 0, 4);
  if (s.charAt(4) != (char) 45 || s.charAt(7) != (char) 45 || s.charAt(13) != (char) 58) { throw new IllegalArgumentException(bad); }
  int month = digits(s, 5, 2);
  int day = digits(s, 8, 2);
  char sep = s.charAt(10);
  if (sep != (char) 84 && sep != (char) 116 && sep != (char) 32) { throw new IllegalArgumentException(bad); }
  int hour = digits(s, 11, 2);
  int minute = digits(s, 14, 2);
  int second = 0;
  BigDecimal fraction = BigDecimal.ZERO;
  int i = 16;
  if (i < n && s.charAt(i) == (char) 58) {
    second = digits(s, i + 1, 2);
    i += 3;
    if (i < n && (s.charAt(i) == (char) 46 || s.charAt(i) == (char) 44)) {
      int j = i + 1;
      while (j < n && isDigit(s.charAt(j))) { j++; }
      if (j - i - 1 < 1 || j - i - 1 > 12) { throw new IllegalArgumentException(bad); }
      fraction = new BigDecimal('0.' + s.substring(i + 1, j));
      i = j;
    }
  }
  if (i >= n) { throw new IllegalArgumentException('an ISO-8601 time needs an offset (Z or +hh:mm)'); }
  int offsetSeconds = 0;
  char c = s.charAt(i);
  if (c == (char) 90 || c == (char) 122) {
    i++;
  } else if (c == (char) 43 || c == (char) 45) {
    int oh = digits(s, i + 1, 2);
    int om = 0;
    i += 3;
    if (i < n) {
      if (s.charAt(i) == (char) 58) { i++; }
      om = digits(s, i, 2);
      i += 2;
    }
    if (oh > 23 || om > 59) { throw new IllegalArgumentException(bad); }
    offsetSeconds = (oh * 3600 + om * 60) * (c == (char) 45 ? -1 : 1);
  } else {
    throw new IllegalArgumentException('an ISO-8601 time needs an offset (Z or +hh:mm)');
  }
  if (i != n || year < 1 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    throw new IllegalArgumentException(bad);
  }
  long epochSecond = LocalDateTime.of(year, month, day, hour, minute, second).toEpochSecond(ZoneOffset.ofTotalSeconds(offsetSeconds));
  return BigDecimal.valueOf(epochSecond).add(fraction).movePointRight(6).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
}

long toMicros(def v) {
  if (v instanceof Integer || v instanceof Long) { return epochMicros(BigDecimal.valueOf(((Number) v).longValue())); }
  if (v instanceof Double || v instanceof Float) {
    double d = ((Number) v).doubleValue();
    if (Double.isNaN(d) || Double.isInfinite(d)) { throw new IllegalArgumentException('not a finite number'); }
    return epochMicros(new BigDecimal(Double.toString(d)));
  }
  if (v instanceof Number) { return epochMicros(new BigDecimal(v.toString())); }
  if (v instanceof String) {
    String t = ((String) v).trim();
    if (isNumeric(t)) { return epochMicros(new BigDecimal(t)); }
    return isoMicros((String) v);
  }
  throw new IllegalArgumentException('must be a number or a string');
}

String shown(def v) {
  String text = String.valueOf(v);
  return text.length() > 64 ? text.substring(0, 64) + '...' : text;
}

Map wi = new HashMap();
List errors = new ArrayList();
if (ctx.containsKey('wi')) { errors.add('the event has its own field wi, which is reserved for ingest data: its value was replaced'); }
for (pair in params.timeFields) {
  String field = pair[0];
  if (!ctx.containsKey(field) || ctx[field] == null) { continue; }
  try {
    wi[pair[1]] = toMicros(ctx[field]);
  } catch (Exception e) {
    errors.add(field + ' ' + shown(ctx[field]) + ': ' + e.getMessage());
  }
}
if (!errors.isEmpty()) { wi.errors = errors; }
ctx.wi = wi;
`;

export function rawEventPipelineName(prefix = ''): string {
  return `${prefix}workflow-events-raw-pipeline`;
}

// OpenSearch's script processor deep-copies the whole document first and fails on an integer beyond 64 bits
// anywhere in it ("unexpected value type [class java.math.BigInteger]"; Fluent Bit prints such numbers as plain
// digits and real payloads hold them). Conditions read the document without copying it, so the script runs only
// when the document has no such integer; otherwise `wi.times_deferred` says the normalizer must derive the times
// from `_source` itself (same rule). The instanceId and eventType checks are conditions for the same reason.
const HAS_BIG_INTEGER = `
boolean big(def v) {
  if (v instanceof BigInteger) { return true; }
  if (v instanceof Map) { for (def x : v.values()) { if (big(x)) { return true; } } }
  if (v instanceof List) { for (def x : v) { if (big(x)) { return true; } } }
  return false;
}
return big(ctx);
`;

const UTF8_LENGTH = `
int utf8Length(String s) {
  int bytes = 0;
  for (int i = 0; i < s.length(); i++) {
    char c = s.charAt(i);
    if (c < (char) 128) { bytes += 1; } else if (c < (char) 2048) { bytes += 2; } else if (Character.isSurrogate(c)) { bytes += 2; } else { bytes += 3; }
  }
  return bytes;
}
`;

const JSON_TYPES: readonly (readonly [string, string])[] = [
  ['number', 'Number'],
  ['boolean', 'Boolean'],
  ['object', 'Map'],
  ['array', 'List'],
];

/** Conditional processors that copy a valid string field to `wi.<target>` or record why not (PostgreSQL's wording). */
function stringFieldProcessors(field: string, target: string, maxBytes: number, required: boolean): Record<string, unknown>[] {
  const value = `ctx['${field}']`;
  const problem = (message: string, condition: string) => ({ append: { field: 'wi.errors', value: [message], if: condition } });
  return [
    ...(required ? [problem(`missing ${field}`, `${value} == null`)] : []),
    ...JSON_TYPES.map(([name, javaType]) => problem(`${field} must be a string, got ${name}`, `${value} instanceof ${javaType}`)),
    ...(required ? [problem(`${field} must not be empty`, `${value} instanceof String && ${value}.isEmpty()`)] : []),
    problem(`${field} is longer than ${maxBytes} bytes`, `${UTF8_LENGTH} return ${value} instanceof String && utf8Length(${value}) > ${maxBytes};`),
    {
      set: {
        field: `wi.${target}`,
        value: `{{{${field}}}}`,
        if: `${UTF8_LENGTH} return ${value} instanceof String && !${value}.isEmpty() && utf8Length(${value}) <= ${maxBytes};`,
      },
    },
  ];
}

export function rawEventPipeline(): Record<string, unknown> {
  return {
    description: 'Workflow Index: exact epoch-microsecond times and problems of raw workflow/task events (never rejects an event)',
    processors: [
      {
        script: {
          tag: 'derive-times',
          lang: 'painless',
          if: `${HAS_BIG_INTEGER.replace('return big(ctx);', 'return !big(ctx);')}`,
          source: CONVERSION_SCRIPT,
          // A list, not a map: errors are recorded in this fixed order.
          params: { timeFields: Object.entries(RAW_TIME_FIELDS) },
          // A failure of the script itself (not of an event value, which the script records) still keeps the
          // document, with the reason.
          on_failure: [{ append: { field: 'wi.errors', value: ['ingest script failed: {{ _ingest.on_failure_message }}'] } }],
        },
      },
      {
        set: {
          field: 'wi.times_deferred',
          value: 'the event holds an integer beyond 64 bits, which ingest scripts cannot read; derive its times from _source',
          if: HAS_BIG_INTEGER,
        },
      },
      ...stringFieldProcessors('instanceId', 'instance_id', MAX_INSTANCE_ID_BYTES, true),
      ...stringFieldProcessors('eventType', 'event_type', 1024, true),
      // Last: `ctx._ingest` is not readable inside a script processor, and the script replaces `wi`.
      { set: { field: 'wi.ingest_time', value: '{{ _ingest.timestamp }}' } },
    ],
  };
}
