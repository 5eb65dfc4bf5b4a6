// Reading GitHub's JSON: a pull request object, and the explanation in an error answer.
// Everything here is untrusted text from the network, so shapes are checked, not assumed.
import type { PullRequest } from "./pull-request.js";

/** The most characters of GitHub's own explanation a message carries. */
export const maxDetailChars = 500;

/** What an error answer of GitHub's says: its `message`, its `errors`, and whether one is "already exists". */
export interface GithubErrorDetail {
  /** `message` and the `errors` entries, on one line, at most `maxDetailChars` characters; empty if none. */
  readonly text: string;
  /** An `errors` entry says a pull request already exists (GitHub's 422 for a second open PR on a head). */
  readonly alreadyExists: boolean;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A GitHub pull-request object as a `PullRequest`, or undefined when it is not one. */
export function parsePullRequest(value: unknown): PullRequest | undefined {
  const pull = record(value);
  if (!pull) return undefined;
  const { number, html_url: url, title, body } = pull;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) return undefined;
  if (typeof url !== "string" || typeof title !== "string") return undefined;
  if (body !== null && body !== undefined && typeof body !== "string") return undefined;
  const sha = record(pull.head)?.sha;
  return { number, url, title, body: body ?? "", ...(typeof sha === "string" ? { headSha: sha } : {}) };
}

/**
 * True when a listed pull request really is open and from `owner:branch`: GitHub drops a
 * `head` filter it cannot parse and lists every open pull request, and taking an unrelated
 * one would edit it. An entry that does not say its state or label is taken at the filter's word.
 */
export function isOpenFromHead(value: unknown, owner: string, branch: string): boolean {
  const pull = record(value);
  const head = record(pull?.head);
  if (!head || head.ref !== branch) return false;
  if (typeof pull?.state === "string" && pull.state !== "open") return false;
  return typeof head.label !== "string" || head.label.toLowerCase() === `${owner}:${branch}`.toLowerCase();
}

/** The explanation in an error answer's text (JSON or not). */
export function errorDetail(text: string): GithubErrorDetail {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const answer = record(parsed);
  const parts: string[] = [];
  if (typeof answer?.message === "string") parts.push(answer.message);
  let alreadyExists = false;
  const errors = Array.isArray(answer?.errors) ? answer.errors : [];
  for (const entry of errors) {
    const fields = record(entry);
    const said =
      typeof entry === "string"
        ? entry
        : typeof fields?.message === "string"
          ? fields.message
          : [fields?.resource, fields?.field, fields?.code].filter((part) => typeof part === "string").join(" ");
    if (!said) continue;
    if (/already exists/i.test(said)) alreadyExists = true;
    parts.push(said);
  }
  // Control characters and newlines would let the host's text forge lines in a log.
  const line = parts
    .join("; ")
    .replace(/[\p{Cc}\s]+/gu, " ")
    .trim();
  return {
    text: line.length > maxDetailChars ? `${line.slice(0, maxDetailChars)}…` : line,
    alreadyExists,
  };
}
