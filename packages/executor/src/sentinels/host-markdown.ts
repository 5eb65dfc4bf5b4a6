import { type MarkdownPiece, splitMarkdown } from "./markdown-pieces.js";

// A zero-width joiner renders as nothing, so the text reads exactly as the agent wrote it and
// the issue reference stays a live link (the issue still shows the cross-reference); only the
// keyword stops being one. Wrapping the reference in a code span would also stop the close,
// but it would unlink the reference and show it as code.
const zeroWidthJoiner = "\u200d";

const issueReference = String.raw`(?:[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)?#\d+|GH-\d+|https?:\/\/[^\s/<>]+\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+\/issues\/\d+`;
const closingKeyword = new RegExp(
  String.raw`\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?=\s*:?\s*<?(?:${issueReference}))`,
  "gi",
);
// A user (`@name`, GitHub's letters, digits and inner hyphens) or a team (`@org/team`).
const mention = /(\\*)@([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9]))*)(\/[A-Za-z0-9][A-Za-z0-9_-]*)?/g;
// After one of these the `@` is part of an address, a path or a word, not a mention.
const notAMentionAfter = /[\p{L}\p{N}_.+\-/@]/u;
// Blockquote markers at the start of a line are markdown, not HTML; they keep their `>`.
const quoteMarkers = /^(?:[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?>)+/;

/**
 * `markdown` made inert for the code host, its rendering otherwise unchanged. Outside code
 * spans, fenced blocks and `<https://…>` autolinks (all left byte for byte):
 *
 * - a closing keyword (close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved;
 *   any case) right before an issue reference (`#1`, `owner/repo#2`, `GH-3`, an `…/issues/4`
 *   URL) gets a zero-width joiner after it, so merging the pull request closes nothing;
 * - `@user` and `@org/team` mentions go into code spans, so nobody is notified; an address
 *   like `a@b.com` or a path like `/@scope` is left alone;
 * - `<` and `>` become `&lt;` and `&gt;`, so no raw HTML renders (nor hides text, as a comment
 *   would, which is also why an agent cannot forge the report region's markers); a backslash-
 *   escaped angle bracket and a blockquote's leading `>` are kept.
 *
 * Line endings become `\n`. Applying it twice changes nothing more.
 */
export function makeInert(markdown: string): string {
  const pieces = splitMarkdown(markdown.replace(/\r\n?/g, "\n"));
  const fence = mentionFence(pieces);
  return pieces
    .map((piece, index) => {
      if (piece.kind !== "prose") return piece.text;
      const next = pieces[index + 1];
      const defused = defuseClosingKeywords(piece.text, next?.kind === "autolink" ? next.text : "");
      const around = { before: pieces[index - 1]?.text.at(-1), after: next?.text[0] };
      return escapeHtml(fenceMentions(defused, fence, around), piece.lineStart);
    })
    .join("");
}

/**
 * `text` with a zero-width joiner after each closing keyword that stands right before an issue
 * reference. `following` is text after it that the reference may begin in (an autolink); only
 * `text` is returned. For plain text too, such as a PR title.
 */
export function defuseClosingKeywords(text: string, following = ""): string {
  let defused = "";
  let last = 0;
  for (const match of (text + following).matchAll(closingKeyword)) {
    const end = match.index + match[0].length;
    if (end > text.length) break;
    defused += text.slice(last, end) + zeroWidthJoiner;
    last = end;
  }
  return defused + text.slice(last);
}

/**
 * The backticks that fence a mention: the shortest run (one, usually) that no stray backtick in
 * the prose has, since a stray run pairs with a fence of its own length and would free the mention.
 */
function mentionFence(pieces: readonly MarkdownPiece[]): string {
  const used = new Set<number>();
  for (const piece of pieces) {
    if (piece.kind === "prose") for (const run of piece.text.matchAll(/`+/g)) used.add(run[0].length);
  }
  let length = 1;
  while (used.has(length)) length += 1;
  return "`".repeat(length);
}

/** `text` with its mentions fenced; `around` is the text either side of it, in the pieces next to it. */
function fenceMentions(
  text: string,
  fence: string,
  around: { readonly before: string | undefined; readonly after: string | undefined },
): string {
  return text.replace(
    mention,
    (match: string, slashes: string, name: string, team: string | undefined, offset: number) => {
      const before = offset === 0 ? around.before : text[offset - 1];
      const after = offset + match.length === text.length ? around.after : text[offset + match.length];
      if (before !== undefined && notAMentionAfter.test(before)) return match;
      // An odd run of backslashes escapes the `@`; inside a code span it is literal anyway.
      const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
      // A backtick right against the fence would lengthen its run; a joiner keeps them apart.
      const open = kept === "" && before === "`" ? zeroWidthJoiner : "";
      const close = after === "`" ? zeroWidthJoiner : "";
      return `${kept}${open}${fence}@${name}${team ?? ""}${fence}${close}`;
    },
  );
}

function escapeHtml(text: string, lineStart: boolean): string {
  return text
    .split("\n")
    .map((line, index) => {
      const markers = index > 0 || lineStart ? (quoteMarkers.exec(line)?.[0] ?? "") : "";
      return markers + escapeAngles(line.slice(markers.length));
    })
    .join("\n");
}

function escapeAngles(text: string): string {
  return text.replace(/(\\*)([<>])/g, (match: string, slashes: string, angle: string) =>
    slashes.length % 2 === 1 ? match : `${slashes}${angle === "<" ? "&lt;" : "&gt;"}`,
  );
}
