import type { GuidanceSource } from "../instructions/guidance-source.js";
import type { ReviewedFile } from "./review-input.js";

/** The reviewer's instructions: advisory, bounded, about the files given and nothing else. */
export const reviewerInstructions = [
  "You review files for another agent. Answer with your review only: problems first, each with the file and line, then smaller remarks.",
  "You see only the files and guidance below. You cannot run anything or open other files; say so where a judgement needs more.",
  "Follow the repository guidance given for these files.",
].join("\n");

/** The one user message of a review: the task, the guidance governing the files, then each file. */
export function reviewMessage(
  task: string,
  files: readonly ReviewedFile[],
  guidance: readonly GuidanceSource[],
): string {
  const parts = [`# Task\n\n${task}`];
  const readable = guidance.filter((source) => source.status === "read");
  if (readable.length > 0) {
    parts.push(
      `# Repository guidance\n\n${readable.map((source) => `## ${source.path}\n\n${source.status === "read" ? source.text : ""}`).join("\n\n")}`,
    );
  }
  for (const file of files) parts.push(`# File: ${file.path}\n\n\`\`\`\`\n${file.text}\n\`\`\`\``);
  return parts.join("\n\n");
}
