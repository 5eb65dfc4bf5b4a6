import type { GuidanceSource } from "./guidance-source.js";

const count = (bytes: number) => bytes.toLocaleString("en-US");

/**
 * The user-side context block of a Run's guidance: each source under its path, root first,
 * then what the budget cut or left out and what could not be read, each named with the bytes
 * dropped. Empty when there is no source.
 */
export function renderGuidance(sources: readonly GuidanceSource[], maxBytes: number): string {
  if (sources.length === 0) return "";
  const parts = [
    "## Workspace guidance (AGENTS.md)",
    "Each file below applies to the files in its directory and below it; a deeper one is more specific.",
  ];
  for (const source of sources) {
    if (source.status === "unreadable") {
      parts.push(`### ${source.path}\n\n[This guidance file could not be read: ${source.reason}]`);
      continue;
    }
    if (source.includedBytes === 0 && source.bytes > 0) {
      parts.push(
        `### ${source.path}\n\n[Omitted: ${count(source.bytes)} bytes dropped; the guidance of this Run reached its budget of ${count(maxBytes)} bytes.]`,
      );
      continue;
    }
    let text = `### ${source.path}\n\n${source.text}`;
    if (source.truncated) {
      text += `\n\n[Cut: ${count(source.bytes - source.includedBytes)} of ${count(source.bytes)} bytes dropped; the guidance of this Run reached its budget of ${count(maxBytes)} bytes.]`;
    }
    parts.push(text);
  }
  return parts.join("\n\n");
}
