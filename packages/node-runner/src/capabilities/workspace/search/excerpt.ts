import { isContinuation, sequenceLength } from "../../../platform/text/utf8.js";
/** A hit's text, as {@link excerpt} makes it. */
export interface Excerpt {
  readonly text: string;
  /** True when the line continues past `text`. */
  readonly truncated: boolean;
}

// ignoreBOM: a line that starts with U+FEFF keeps it (the decoder would drop it as a BOM).
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * A line's text from its first bytes: `prefix` holds the whole line (without its LF) when
 * it is at most `maxBytes` long, else at least its first `maxBytes + 1` bytes, so a cut can
 * tell whether a character straddles the limit. A longer line is cut to `maxBytes` bytes,
 * or fewer to end before the character the limit falls inside (bytes that are no valid
 * character are not held back). Invalid UTF-8 decodes as U+FFFD.
 */
export function excerpt(prefix: Uint8Array, maxBytes: number): Excerpt {
  if (prefix.length <= maxBytes) return { text: decoder.decode(prefix), truncated: false };
  return { text: decoder.decode(prefix.subarray(0, cutAt(prefix, maxBytes))), truncated: true };
}

/** The end at or below `limit` that cuts no well-formed character whose bytes run past it. */
function cutAt(bytes: Uint8Array, limit: number): number {
  let start = limit;
  // Back over at most three continuation bytes to the byte that may lead the character.
  while (start > 0 && limit - start < 3 && isContinuation(bytes[start] as number)) start--;
  if (start === limit) return limit;
  const length = sequenceLength(bytes[start] as number);
  return length > 1 && start + length > limit ? start : limit;
}
