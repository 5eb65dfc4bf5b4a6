import { z } from "zod";
import { readJsonSentinel } from "./json-sentinel.js";
import { effortFile } from "./sentinel-files.js";

/** The sizes an agent may give its change. */
export const effortLevels = ["small", "medium", "large"] as const;
/** The most characters of the effort's optional note: 2,000. */
export const maxEffortNoteChars = 2_000;

/** The agent's own estimate of how big its change is. */
export interface EffortEstimate {
  readonly level: (typeof effortLevels)[number];
  /** At most 2,000 characters. */
  readonly note?: string;
}

/** The shape of `.castellan-effort.json`: `{ level, note? }`, strict (an unknown key refuses the file). */
export const effortSchema = z.strictObject({
  level: z.enum(effortLevels),
  note: z.string().max(maxEffortNoteChars).optional(),
});

/** The effort sentinel, or why there is none. */
export type EffortReading =
  | { readonly state: "absent" }
  | { readonly state: "read"; readonly effort: EffortEstimate }
  | { readonly state: "invalid"; readonly note: string };

/** Reads `.castellan-effort.json` at the root of `checkout` against {@link effortSchema}. Never rejects. */
export async function readEffort(checkout: string): Promise<EffortReading> {
  const reading = await readJsonSentinel(checkout, effortFile, effortSchema);
  return reading.state === "read" ? { state: "read", effort: reading.value } : reading;
}
