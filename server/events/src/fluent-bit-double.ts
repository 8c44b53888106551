// How Fluent Bit prints a double it holds (src/flb_pack.c): "%.1f" when integral and within the int64 range, else
// C's printf("%.16g"), which rounds the exact binary value to 16 significant digits, ties to even (JavaScript's
// toExponential/toPrecision round exact ties up). A 17-digit double loses its last digit; 1.0E9 prints as
// 1000000000.0. One implementation for everything that stands in for Fluent Bit: its model, the OpenSearch bulk
// writer and the forwarder stand-ins of the tests.

const TWO_POW_63 = 9223372036854775808;

/** Whether the double x is exactly digits × 10^exponent (exact binary arithmetic). */
function exactlyEquals(x: number, digits: bigint, exponent: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let binaryExponent = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    binaryExponent = biased - 1075;
  }
  let left = mantissa;
  let right = digits;
  if (binaryExponent >= 0) left <<= BigInt(binaryExponent);
  else right <<= BigInt(-binaryExponent);
  if (exponent >= 0) right *= 10n ** BigInt(exponent);
  else left *= 10n ** BigInt(-exponent);
  return left === right;
}

/** The 16 significant digits of |x| and the decimal exponent of the first, rounded as glibc does: to nearest,
 * exact ties to even (JavaScript's toExponential rounds exact ties up). */
function sixteenDigits(x: number): { digits: string; exponent: number } {
  const [m17, e17] = Math.abs(x).toExponential(16).split('e') as [string, string];
  const d17 = m17.replace('.', '');
  if (d17.endsWith('5') && exactlyEquals(x, BigInt(d17), Number(e17) - 16)) {
    let kept = BigInt(d17.slice(0, 16));
    if (kept % 2n === 1n) kept += 1n;
    const text = kept.toString();
    return text.length > 16 ? { digits: text.slice(0, 16), exponent: Number(e17) + 1 } : { digits: text, exponent: Number(e17) };
  }
  const [m16, e16] = Math.abs(x).toExponential(15).split('e') as [string, string];
  return { digits: m16.replace('.', ''), exponent: Number(e16) };
}

/** C's printf("%.16g", x) for a double. */
export function formatG16(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { digits, exponent } = sixteenDigits(x);
  let out: string;
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.slice(1).replace(/0+$/, '');
    out = `${digits[0]}${fraction === '' ? '' : `.${fraction}`}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  } else if (exponent >= 0) {
    const whole = digits.slice(0, exponent + 1);
    const fraction = digits.slice(exponent + 1).replace(/0+$/, '');
    out = fraction === '' ? whole : `${whole}.${fraction}`;
  } else {
    out = `0.${'0'.repeat(-exponent - 1)}${digits.replace(/0+$/, '')}`;
  }
  return x < 0 ? `-${out}` : out;
}

/** How Fluent Bit prints a double it holds. */
export function formatFluentBitDouble(x: number): string {
  // (double)(long long)x == x: integral and inside the int64 range (outside it the cast does not round-trip).
  if (Object.is(x, -0)) return '-0.0';
  if (Number.isInteger(x) && x >= -TWO_POW_63 && x < TWO_POW_63) return x.toFixed(1);
  return formatG16(x);
}

