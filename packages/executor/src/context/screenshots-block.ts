import type { ContextStaging } from "./context-staging.js";
import { quoted } from "./context-text.js";

/**
 * The block for the end of a capturing agent's instructions: each staged reference image by
 * its view and its path in the checkout, then every view it has no image for (left out of the
 * job, or a transfer that failed, with the reason), since on disk a missing image and a view
 * the design lacks look the same.
 */
export function screenshotsBlock(outcome: ContextStaging): string {
  const lines = ["## Reference screenshots", ""];
  if (outcome.staged.length > 0) {
    lines.push(
      "The reference design images of this task are in the checkout, one per view. Compare what you capture of each view with its image; read them, do not edit or commit them:",
      ...outcome.staged.map((image) => `- ${quoted(image.view)}: ${image.path}`),
    );
  } else {
    lines.push("No reference design image is in the checkout for this task.");
  }
  if (outcome.omitted.length > 0 || outcome.failed.length > 0) {
    lines.push(
      "",
      "These views have no reference image, so there is nothing to compare them with; capture them all the same:",
      ...outcome.omitted.map((view) => `- ${quoted(view)}: not sent with this job`),
      ...outcome.failed.map(
        (image) => `- ${quoted(image.view)}: ${quoted(image.fileName)} did not arrive (${image.reason})`,
      ),
    );
  }
  return lines.join("\n");
}
