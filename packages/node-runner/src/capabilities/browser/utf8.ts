// Byte arithmetic on UTF-8 text: every cut lands on a character boundary.

/** The UTF-8 byte length of `text`. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The largest index `<= index` of `bytes` that starts a UTF-8 character (or is its end). */
export function characterBoundary(bytes: Uint8Array, index: number): number {
  let at = Math.max(0, Math.min(index, bytes.length));
  // Continuation bytes are 10xxxxxx.
  while (at > 0 && at < bytes.length && ((bytes[at] as number) & 0xc0) === 0x80) at--;
  return at;
}

/**
 * Where to end a piece of `bytes` that starts at `start` and may hold at most `budget` bytes:
 * just after the last line break that fits, unless that would keep less than half the budget
 * (one very long line), else at the last character boundary that fits. Returns `bytes.length`
 * when the rest fits. Always past `start` when `budget` allows a character.
 */
export function cutAtLine(bytes: Uint8Array, start: number, budget: number): number {
  const limit = start + budget;
  if (limit >= bytes.length) return bytes.length;
  const newline = bytes.lastIndexOf(0x0a, limit - 1);
  if (newline >= start && newline + 1 - start >= budget / 2) return newline + 1;
  const boundary = characterBoundary(bytes, limit);
  return boundary > start ? boundary : limit;
}
