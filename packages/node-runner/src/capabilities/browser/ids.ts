import { randomBytes } from "node:crypto";

// Observation ids and tab-id prefixes must never repeat, not even across owners or process
// restarts: a ref or tab id from saved history must never name something in a fresh browser.
// Five random base36 characters (about 60 million values): short, since every ref the model
// reads carries one, and enough that a restarted process repeating one is not a real risk.
const processToken = (randomBytes(4).readUInt32BE() % 36 ** 5).toString(36).padStart(5, "0");
let counter = 0;

/**
 * A new opaque id: lower-case base36 letters and digits, a random per-process part and a
 * counter, unique across owners and restarts. Never contains `.` (refs are `<id>.<adapterRef>`).
 */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}${processToken}${counter.toString(36)}`;
}
