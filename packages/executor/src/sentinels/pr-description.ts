import { defuseClosingKeywords, makeInert } from "./host-markdown.js";
import { classifyLines } from "./markdown-pieces.js";
import { readSentinelText } from "./read-sentinel.js";
import { prDescriptionFile } from "./sentinel-files.js";
import { liftTitle } from "./title-heading.js";

/**
 * The most characters of a PR description the server sends: 60,000, its cut notes included.
 * GitHub refuses a body over 65,536; the rest is left for the report region.
 */
export const maxDescriptionChars = 60_000;
/** The most characters of a PR title lifted from the briefing: 256, a cut one ending in `…`. */
export const maxTitleChars = 256;

/** How the briefing is lifted. */
export interface PrDescriptionOptions {
  /**
   * Lift a leading `# title` (the file's only level-1 heading) into the PR title. False when the
   * repository's PR template is in use: its headings are the repository's, and lifting the top
   * one would retitle the PR after the template and drop that heading from the body.
   */
  readonly titleFromHeading: boolean;
  /** The job's credential redactor; applied first, so a cut or a note never splits a secret. */
  readonly scrub: (text: string) => string;
}

/**
 * The agent's briefing, or why there is none; anything but `read` means the job's own
 * `pullRequest.title` and `description` are kept. `notes` are for the job's result.
 */
export type PrDescriptionReading =
  | { readonly state: "absent" | "empty" | "invalid"; readonly notes: readonly string[] }
  | {
      readonly state: "read";
      /** Set only when lifted from the heading; otherwise the job's own title is kept. */
      readonly title?: string;
      /** Scrubbed, cut to 60,000 characters with a visible note, and made inert. */
      readonly body: string;
      readonly notes: readonly string[];
    };

/**
 * Reads `.castellan-pr-description.md` at the root of `checkout` (a regular file of at most
 * 1 MiB of UTF-8; a symlink is refused) and prepares it as {@link preparePrDescription} does.
 * Never rejects.
 */
export async function readPrDescription(
  checkout: string,
  options: PrDescriptionOptions,
): Promise<PrDescriptionReading> {
  const file = await readSentinelText(checkout, prDescriptionFile);
  if (file.state === "absent") return { state: "absent", notes: [] };
  if (file.state === "invalid") return { state: "invalid", notes: [file.note] };
  return preparePrDescription(file.text, options);
}

/**
 * The briefing `text` made ready for the code host: empty (whitespace only) is `empty`;
 * otherwise scrubbed, its title lifted (see {@link PrDescriptionOptions.titleFromHeading}), the
 * title cut to 256 characters and the body to 60,000 (each cut stated in an italic line at the
 * body's end and in `notes`), then made inert by `makeInert` (the title only has its closing
 * keywords defused: a title is plain text, where a code span or an entity would show).
 */
export function preparePrDescription(text: string, options: PrDescriptionOptions): PrDescriptionReading {
  const source = text.replace(/\r\n?/g, "\n");
  if (source.trim() === "") {
    return { state: "empty", notes: [`\`${prDescriptionFile}\` is empty; the job's own description was kept.`] };
  }
  const scrubbed = options.scrub(source);
  const lifted = options.titleFromHeading ? liftTitle(scrubbed) : { body: scrubbed };
  const notes: string[] = [];
  const footnotes: string[] = [];
  let title = lifted.title === undefined ? undefined : defuseClosingKeywords(lifted.title);
  if (title !== undefined && title.length > maxTitleChars) {
    const length = title.length;
    title = `${cutAt(title, maxTitleChars - 1).trimEnd()}…`;
    notes.push(`The PR title was ${count(length)} characters, over the bound of ${count(maxTitleChars)}; it was cut.`);
    footnotes.push(
      `_The title of this pull request was cut to ${count(maxTitleChars)} of its ${count(length)} characters._`,
    );
  }
  const body = capBody(lifted.body.replace(/^(?:[ \t]*\n)+/, "").trimEnd(), footnotes, notes);
  return { state: "read", ...(title === undefined ? {} : { title }), body, notes };
}

/**
 * `body` made inert and, when that does not fit 60,000 characters with the footnotes, cut first
 * and made inert after: so the cut never splits an `&lt;` or a code span the inert pass wrote,
 * and the escaping (which can lengthen the text) cannot push the result past the bound.
 */
function capBody(body: string, footnotes: readonly string[], notes: string[]): string {
  const render = (cut: number): { readonly text: string; readonly kept: number } => {
    const kept = cutAt(body, cut);
    let inert = makeInert(kept).trimEnd();
    const parts: string[] = [];
    if (kept.length < body.length) {
      // A cut inside a fenced block would put the note inside the code; close the block first.
      const fence = classifyLines(kept).openFence;
      if (fence !== undefined) inert += `\n${fence}`;
      parts.push(
        `_This description was cut at ${count(kept.length)} of its ${count(body.length)} characters, to fit the bound of ${count(maxDescriptionChars)}._`,
      );
    }
    return { text: [inert, ...parts, ...footnotes].filter((part) => part !== "").join("\n\n"), kept: kept.length };
  };
  let cut = Math.min(body.length, maxDescriptionChars);
  let rendered = render(cut);
  while (rendered.text.length > maxDescriptionChars && cut > 0) {
    cut = Math.max(0, Math.min(cut - 1, Math.floor((cut * maxDescriptionChars) / rendered.text.length)));
    rendered = render(cut);
  }
  if (rendered.kept < body.length) {
    notes.push(
      `The PR description was cut at ${count(rendered.kept)} of its ${count(body.length)} characters, to fit the bound of ${count(maxDescriptionChars)}.`,
    );
  }
  return rendered.text;
}

/** The first `length` UTF-16 units of `text`, one fewer rather than half a surrogate pair. */
function cutAt(text: string, length: number): string {
  if (length >= text.length) return text;
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}
