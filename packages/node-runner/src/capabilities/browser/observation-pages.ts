import type { StoredObservation } from "./observation-store.js";
import { byteLength, characterBoundary, cutAtLine } from "./utf8.js";

/** The most bytes one returned text block holds, whatever `maxObservationBytes` allows. */
export const maxPageBytes = 8_192;

function continuation(observationId: string, offset: number): string {
  return `[continue: call browser_snapshot with ${JSON.stringify({ observationId, offset })}]\n`;
}

/**
 * One text block of `stored` from byte `offset` (moved back to a character boundary), with an
 * optional first line: at most `pageBytes` bytes, cut at a line where possible, ending with
 * the continuation arguments when more follows. The same arguments give the same bytes.
 */
export function observationPage(stored: StoredObservation, offset: number, pageBytes: number, heading = ""): string {
  const bytes = stored.bytes;
  const start = characterBoundary(bytes, offset);
  const head = heading === "" ? "" : `${heading}\n`;
  const budget = pageBytes - byteLength(head);
  if (bytes.length - start <= budget) return head + Buffer.from(bytes.subarray(start)).toString("utf8");
  // The continuation's offset has at most as many digits as the whole length.
  // One byte more for the line break before it when the piece ends inside a line.
  const room = budget - byteLength(continuation(stored.observationId, bytes.length)) - 1;
  const end = cutAtLine(bytes, start, room);
  const piece = Buffer.from(bytes.subarray(start, end)).toString("utf8");
  const separator = piece.endsWith("\n") ? "" : "\n";
  return `${head}${piece}${separator}${continuation(stored.observationId, end)}`;
}

/** Where `query` first occurs, case-insensitively and literally: the byte offset and number of its line. */
export function findLine(stored: StoredObservation, query: string): { offset: number; line: number } | undefined {
  const needle = query.toLowerCase();
  const text = Buffer.from(stored.bytes).toString("utf8");
  let offset = 0;
  let line = 1;
  for (const content of text.split("\n")) {
    if (content.toLowerCase().includes(needle)) return { offset, line };
    offset += byteLength(content) + 1;
    line += 1;
  }
  return undefined;
}
