// Two small text helpers every package needs, kept in one place: the message of a thrown value,
// and a cut at a UTF-8 boundary. Web-standard APIs only (TextEncoder), like the rest of harness.

/** The message of a thrown value: an Error's `message`, anything else as `String(value)`. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The longest start of `text` that is at most `maxBytes` bytes of UTF-8, never splitting a
 * character, and whether anything was cut. `maxBytes` below 0 counts as 0.
 */
export function cutUtf8(text: string, maxBytes: number): { readonly text: string; readonly truncated: boolean } {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = Math.max(0, maxBytes);
  // Step back over continuation bytes (10xxxxxx) to the start of the character that would be split.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return { text: decoder.decode(bytes.subarray(0, end)), truncated: true };
}

/**
 * The longest end of `text` that is at most `maxBytes` bytes of UTF-8, never splitting a
 * character, and whether anything was cut. `maxBytes` below 0 counts as 0.
 */
export function cutUtf8Tail(text: string, maxBytes: number): { readonly text: string; readonly truncated: boolean } {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let start = bytes.length - Math.max(0, maxBytes);
  while (start < bytes.length && ((bytes[start] as number) & 0xc0) === 0x80) start++;
  return { text: decoder.decode(bytes.subarray(start)), truncated: true };
}
