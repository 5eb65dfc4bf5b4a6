/**
 * Compares two names in the byte order of their UTF-8 encoding, without encoding them:
 * UTF-16 code units order the same way except that surrogates (U+D800-U+DFFF, the halves of
 * characters above U+FFFF) sort below U+E000-U+FFFF there and above them in UTF-8.
 */
export function compareNames(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left === right) continue;
    if (left >= 0xd800 && right >= 0xd800) return utf8Rank(left) - utf8Rank(right);
    return left - right;
  }
  return a.length - b.length;
}

/** A code unit at or above U+D800 ranked as its character's UTF-8 bytes would be. */
function utf8Rank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}
