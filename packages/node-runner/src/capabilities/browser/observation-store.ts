import { uniqueId } from "./ids.js";
import { shownRefs } from "./refs.js";
import { byteLength, cutAtLine } from "./utf8.js";

/** The one observation a Session keeps, in memory: immutable, read by continuation and query. */
export interface StoredObservation {
  readonly observationId: string;
  /** The bounded text, as UTF-8. */
  readonly bytes: Uint8Array;
  /** The adapter refs the bounded text shows. */
  readonly refs: ReadonlySet<string>;
}

/** A fresh observation id: `o` and base36, unique across owners and restarts. */
export function newObservationId(): string {
  return uniqueId("o");
}

/**
 * Bounds `text` to `maxBytes`: a longer text is cut at a line (inside one only when that line
 * alone is over half the budget, never inside a character) and ends with a line giving the
 * bytes shown and the total, the whole staying within `maxBytes`.
 */
export function boundObservation(text: string, maxBytes: number): Uint8Array {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return bytes;
  // The count line's width depends on the shown bytes, so budget for the widest it can be.
  const widest = countLine(maxBytes, bytes.length);
  const end = cutAtLine(bytes, 0, maxBytes - byteLength(widest));
  const shown = bytes.subarray(0, end);
  const separator = shown.length > 0 && shown[shown.length - 1] !== 0x0a ? "\n" : "";
  const tail = Buffer.from(`${separator}${countLine(end, bytes.length)}`, "utf8");
  return Buffer.concat([shown, tail]);
}

function countLine(shown: number, total: number): string {
  return `[observation cut at a line: ${shown} of ${total} bytes shown]\n`;
}

/**
 * Stores an observation's text under `observationId`, bounded to `maxBytes`; its refs are the
 * ones the bounded text still shows (the text's snapshot already carries exposed refs).
 */
export function storeObservation(observationId: string, text: string, maxBytes: number): StoredObservation {
  const bytes = boundObservation(text, maxBytes);
  return { observationId, bytes, refs: shownRefs(Buffer.from(bytes).toString("utf8"), observationId) };
}
