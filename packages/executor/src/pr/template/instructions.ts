import { prDescriptionFile } from "../../sentinels/sentinel-files.js";
import type { PrTemplate } from "./read-template.js";

/**
 * The section folded into every pass's instructions when the repository has a PR template:
 * write the briefing to `.castellan-pr-description.md` as the template filled in. Needed
 * because a code host applies a template only in the web form a human opens, never to a pull
 * request created through its API. Carries the template's path and its whole text, fenced with
 * more backticks than the text holds in a row so it cannot close the fence early.
 */
export function templateInstructions(template: PrTemplate): string {
  const longestRun = Math.max(0, ...[...template.content.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return [
    "## The repository's pull request template",
    `This repository has a pull request template, \`${template.path}\`, and nothing applies it to a pull request the server opens. So write your briefing for the reviewer to \`${prDescriptionFile}\` as this template, filled in:`,
    "- Keep its headings, its sections and their order. Answer each section for this change: what it does and why, how you checked it, what a reviewer should look at. Where a section does not apply, say so in a line instead of removing it.",
    "- Replace its placeholders and prompts with your answers, and tick a checklist item only when it is true of this change.",
    "- Leave out its HTML comments: raw HTML shows as text in the description, it is not hidden.",
    "- Its headings stay headings of the description; none of them becomes the pull request's title.",
    "",
    "The template:",
    "",
    `${fence}markdown`,
    template.content.replace(/\r\n?/g, "\n").trimEnd(),
    fence,
  ].join("\n");
}
