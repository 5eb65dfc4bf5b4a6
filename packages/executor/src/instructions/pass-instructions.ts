/** What the instructions of one pass are made of, in the order they appear. */
export interface PassInstructionParts {
  /** The body's `systemPrompt`. */
  readonly systemPrompt: string;
  /** The environment inventory block (measured once per job). */
  readonly inventory: string;
  /** True when the work branch already carries earlier work (a resumed job, or a repair pass). */
  readonly continuing?: "resumed" | "repair";
  /** Whether the job opens a pull request (the description sentinel is asked for only then). */
  readonly pullRequest: boolean;
  /** The dependency install's note (every pass). */
  readonly install?: string;
  /** The PR template's instructions (every pass, only with a pull request). */
  readonly template?: string;
  /** The reference screenshots block, or the design images correction. */
  readonly context?: readonly string[];
  /** Why this repair pass runs: the failed check or the proof's outputs. */
  readonly repair?: string;
}

/** The delivery contract every pass is held to. */
export function deliveryContract(): string {
  return [
    "## Delivering your work",
    "You are working on a git branch the server publishes for you while you work and after you finish.",
    "- Commit what you want kept, with messages that say why; the server pushes your commits.",
    "- Add commits; never rewrite published ones (no rebase, no reset below where you started, no force push). An amend of your own latest commit is fine.",
    "- Never commit the server's files: `.castellan-pr-description.md`, `.castellan-follow-ups.json`, `.castellan-effort.json` and `.castellan-context/` are excluded from git; leave them so.",
    "- Whatever you leave uncommitted is committed by the server after your pass, marked as its salvage rather than your choice; credential files are never committed.",
  ].join("\n");
}

/** The rules of the sentinel files the server reads after each pass. */
export function sentinelRules(pullRequest: boolean): string {
  const lines = ["## Files the server reads after your pass (at the checkout root, never committed)"];
  if (pullRequest) {
    lines.push(
      "- `.castellan-pr-description.md`: the pull request's description, in Markdown, for a reviewer: what changed and why, and how it was checked. Without it the server uses the description it was given.",
    );
  }
  lines.push(
    '- `.castellan-follow-ups.json` (optional): `[{ "title": "...", "detail": "..." }]`, at most 20, for work you found but did not do.',
    '- `.castellan-effort.json` (optional): `{ "level": "small" | "medium" | "large", "note": "..." }`, how big the change was.',
  );
  return lines.join("\n");
}

/** The instructions of one pass, composed at one point: every part that applies, in order. */
export function composePassInstructions(parts: PassInstructionParts): string {
  const sections = [parts.systemPrompt];
  if (parts.inventory) sections.push(parts.inventory);
  if (parts.continuing === "resumed") {
    sections.push(
      "## Earlier work\nThis job was interrupted and has resumed: the branch you are on already carries the earlier work (see `git log`). Continue from it; do not start over.",
    );
  } else if (parts.continuing === "repair") {
    sections.push(
      "## Earlier work\nThis is a repair pass: the branch already carries the earlier passes' commits (see `git log`). Build on them.",
    );
  }
  sections.push(deliveryContract());
  if (parts.install) sections.push(parts.install);
  if (parts.pullRequest && parts.template) sections.push(parts.template);
  sections.push(sentinelRules(parts.pullRequest));
  for (const block of parts.context ?? []) if (block) sections.push(block);
  if (parts.repair) sections.push(parts.repair);
  return sections.join("\n\n");
}
