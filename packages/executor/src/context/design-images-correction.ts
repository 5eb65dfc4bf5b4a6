import type { ContextStaging } from "./context-staging.js";
import { quoted } from "./context-text.js";

/**
 * A correction to the backend's prompt, which already names every design image and its view:
 * `undefined` (say nothing) when every image landed and none was left out; otherwise the views
 * whose image is not in the checkout and why, so the agent does not go looking for a file that
 * is not there and takes the missing screens from the rest of the brief.
 */
export function designImagesCorrection(outcome: ContextStaging): string | undefined {
  if (outcome.failed.length === 0 && outcome.omitted.length === 0) return undefined;
  return [
    "## Correction: design images",
    "",
    "Not every design image your instructions name is in the checkout. Do not look for these; build their views from the rest of the brief:",
    ...outcome.failed.map(
      (image) => `- ${quoted(image.view)}: ${quoted(image.fileName)} did not arrive (${image.reason})`,
    ),
    ...outcome.omitted.map((view) => `- ${quoted(view)}: not sent with this job`),
  ].join("\n");
}
