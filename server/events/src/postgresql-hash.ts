// PostgreSQL's hashtextextended(text, 0) (hash_bytes_extended of src/common/hashfn.c, Bob Jenkins' lookup3, as on
// a little-endian server with a deterministic collation), returned as the signed BIGINT PostgreSQL gives. The
// PostgreSQL normalizer orders same-instant task events of one role by this hash of their content; computing the
// very same number here makes the OpenSearch normalizer pair such events exactly as PostgreSQL does.

function rot(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

export function hashTextExtended(text: string): bigint {
  const k = Buffer.from(text, 'utf8');
  let len = k.length;
  let a = (0x9e3779b9 + len + 3923095) >>> 0;
  let b = a;
  let c = a;
  const mix = (): void => {
    a = (a - c) >>> 0; a = (a ^ rot(c, 4)) >>> 0; c = (c + b) >>> 0;
    b = (b - a) >>> 0; b = (b ^ rot(a, 6)) >>> 0; a = (a + c) >>> 0;
    c = (c - b) >>> 0; c = (c ^ rot(b, 8)) >>> 0; b = (b + a) >>> 0;
    a = (a - c) >>> 0; a = (a ^ rot(c, 16)) >>> 0; c = (c + b) >>> 0;
    b = (b - a) >>> 0; b = (b ^ rot(a, 19)) >>> 0; a = (a + c) >>> 0;
    c = (c - b) >>> 0; c = (c ^ rot(b, 4)) >>> 0; b = (b + a) >>> 0;
  };
  let p = 0;
  while (len >= 12) {
    a = (a + k.readUInt32LE(p)) >>> 0;
    b = (b + k.readUInt32LE(p + 4)) >>> 0;
    c = (c + k.readUInt32LE(p + 8)) >>> 0;
    mix();
    p += 12;
    len -= 12;
  }
  // The last 11 bytes; the lowest byte of c is reserved for the length.
  const byte = (i: number): number => k[p + i]!;
  /* eslint-disable no-fallthrough */
  switch (len) {
    case 11: c = (c + (byte(10) << 24 >>> 0)) >>> 0;
    case 10: c = (c + (byte(9) << 16)) >>> 0;
    case 9: c = (c + (byte(8) << 8)) >>> 0;
    case 8: b = (b + (byte(7) << 24 >>> 0)) >>> 0;
    case 7: b = (b + (byte(6) << 16)) >>> 0;
    case 6: b = (b + (byte(5) << 8)) >>> 0;
    case 5: b = (b + byte(4)) >>> 0;
    case 4: a = (a + (byte(3) << 24 >>> 0)) >>> 0;
    case 3: a = (a + (byte(2) << 16)) >>> 0;
    case 2: a = (a + (byte(1) << 8)) >>> 0;
    case 1: a = (a + byte(0)) >>> 0;
  }
  /* eslint-enable no-fallthrough */
  c = (c ^ b) >>> 0; c = (c - rot(b, 14)) >>> 0;
  a = (a ^ c) >>> 0; a = (a - rot(c, 11)) >>> 0;
  b = (b ^ a) >>> 0; b = (b - rot(a, 25)) >>> 0;
  c = (c ^ b) >>> 0; c = (c - rot(b, 16)) >>> 0;
  a = (a ^ c) >>> 0; a = (a - rot(c, 4)) >>> 0;
  b = (b ^ a) >>> 0; b = (b - rot(a, 14)) >>> 0;
  c = (c ^ b) >>> 0; c = (c - rot(b, 24)) >>> 0;
  return BigInt.asIntN(64, (BigInt(b) << 32n) | BigInt(c));
}
