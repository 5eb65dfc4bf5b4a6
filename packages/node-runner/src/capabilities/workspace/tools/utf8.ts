/** Length of the UTF-8 sequence a lead byte starts: 1-4, or 0 for a continuation or invalid byte. */
export function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte < 0xe0) return 2;
  if (byte >= 0xe0 && byte < 0xf0) return 3;
  if (byte >= 0xf0 && byte < 0xf5) return 4;
  return 0;
}

/** True for a UTF-8 continuation byte (10xxxxxx). */
export function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * The largest `end` ≤ `bytes.length` that does not cut a character whose bytes are all in
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
