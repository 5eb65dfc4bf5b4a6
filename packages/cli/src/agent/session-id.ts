import { randomBytes } from "node:crypto";

/** A new Session id: `<UTC yyyymmddTHHMMSS>-<6 hex>`, so ids sort by their start. */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").slice(0, 15);
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}
