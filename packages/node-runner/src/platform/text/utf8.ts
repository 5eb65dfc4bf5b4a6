// UTF-8 character boundaries in bytes, so kept output, pages and excerpts never cut inside a
// character. (Cutting a string: cutUtf8 and cutUtf8Tail in @castellan/harness.)

/** True for a UTF-8 continuation byte (`10xxxxxx`), which never starts a character. */
export function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** The length a lead byte announces (1 to 4), or 0 for a continuation or a byte no character starts with. */
export function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/**
 * How many bytes at the end of `bytes` (0 to 3) begin a character that is not complete in
 * `bytes`: cutting before them keeps that character whole for whatever comes next. Invalid
 * input counts as complete, so it is cut where it is and decodes as U+FFFD.
 */
export function incompleteTailLength(bytes: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back] as number;
    if (!isContinuation(byte)) return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}

/**
 * How many continuation bytes `bytes` starts with (0 to 3): the rest of a character whose
 * lead byte was cut off, dropped with it. More than three cannot belong to one character.
 */
export function leadingContinuationLength(bytes: Uint8Array): number {
  let count = 0;
  while (count < 3 && count < bytes.length && isContinuation(bytes[count] as number)) count++;
  return count;
}

/** Decodes UTF-8, each invalid byte sequence as U+FFFD; a byte-order mark is kept as text. */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The largest `end` <= `bytes.length` that does not cut a character whose bytes are all in
 * `bytes` and which continues past the end: a well-formed character split by the end is
 * left whole for the next page. Invalid bytes are not characters and are never held back.
 */
export function characterEnd(bytes: Uint8Array, end = bytes.length): number {
  let start = end;
  while (start > 0 && end - start < 3 && isContinuation(bytes[start - 1] as number)) start--;
  if (start === 0) return end;
  const length = sequenceLength(bytes[start - 1] as number);
  return length > 1 && start - 1 + length > end ? start - 1 : end;
}

/** True when `bytes` is not valid UTF-8 (it then decodes with U+FFFD). */
export function hasInvalidUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}
