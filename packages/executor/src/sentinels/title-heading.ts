import { classifyLines } from "./markdown-pieces.js";

// A level-1 ATX heading: one `#` (up to three spaces in), then a space, a tab or the line's end.
const levelOneHeading = /^ {0,3}#(?=[ \t]|$)/;

/**
 * A leading `# title` of `text` and the text without that line. Lifted only when the first
 * non-blank line is that heading and it is the text's only level-1 heading outside fenced code
 * (with several, the headings are the document's structure, not its title). Not lifted either
 * when the heading is empty or nothing would be left of the body, so the briefing never loses
 * its only words. Otherwise `{ body: text }`.
 */
export function liftTitle(text: string): { readonly title?: string; readonly body: string } {
  const { lines } = classifyLines(text);
  const isHeading = (line: (typeof lines)[number]) => !line.code && levelOneHeading.test(line.text.replace(/\n$/, ""));
  const first = lines.findIndex((line) => line.text.trim() !== "");
  const heading = lines[first];
  if (heading === undefined || !isHeading(heading) || lines.filter(isHeading).length !== 1) return { body: text };
  const title = heading.text
    .replace(/\n$/, "")
    .replace(/^ {0,3}#/, "")
    // An optional closing sequence: `# Title ##`, but not the `#` of `# C#`.
    .replace(/(?:^|[ \t]+)#+[ \t]*$/, "")
    .trim();
  const body = lines
    .slice(first + 1)
    .map((line) => line.text)
    .join("")
    .replace(/^(?:[ \t]*\n)+/, "");
  if (title === "" || body.trim() === "") return { body: text };
  return { title, body };
}
