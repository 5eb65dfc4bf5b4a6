import { z } from "zod";
import { readJsonSentinel } from "./json-sentinel.js";
import { followUpsFile } from "./sentinel-files.js";

/** The most follow-ups one sentinel may list: 20. More and the whole file is refused. */
export const maxFollowUps = 20;
/** The most characters of a follow-up's title: 200 (at least 1 that is not whitespace). */
export const maxFollowUpTitleChars = 200;
/** The most characters of a follow-up's optional detail: 4,000. */
export const maxFollowUpDetailChars = 4_000;

/** One piece of work the agent suggests for later. */
export interface SuggestedFollowUp {
  /** Trimmed; 1 to 200 characters. */
  readonly title: string;
  /** At most 4,000 characters. */
  readonly detail?: string;
}

/**
 * The shape of `.castellan-follow-ups.json`: an array of at most 20 `{ title, detail? }`,
 * strict (an unknown key refuses the file, so a misspelt field is not dropped unnoticed).
 */
export const followUpsSchema = z
  .array(
    z.strictObject({
      title: z.string().trim().min(1).max(maxFollowUpTitleChars),
      detail: z.string().max(maxFollowUpDetailChars).optional(),
    }),
  )
  .max(maxFollowUps);

/** The follow-ups sentinel, or why there is none. */
export type FollowUpsReading =
  | { readonly state: "absent" }
  | { readonly state: "read"; readonly followUps: readonly SuggestedFollowUp[] }
  | { readonly state: "invalid"; readonly note: string };

/**
 * Reads `.castellan-follow-ups.json` at the root of `checkout` against {@link followUpsSchema}.
 * Refused whole (never trimmed to fit) when anything is off, with a note. Never rejects.
 */
export async function readFollowUps(checkout: string): Promise<FollowUpsReading> {
  const reading = await readJsonSentinel(checkout, followUpsFile, followUpsSchema);
  return reading.state === "read" ? { state: "read", followUps: reading.value } : reading;
}
