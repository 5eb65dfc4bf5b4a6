import { type CommandRuntime, shellArgument } from "@castellan/node-runner";
import { runServerCommand } from "../commands/server-command.js";
import type { CheckoutGit } from "../git/checkout-git.js";

/** The bytes of install output a note quotes: the last 8 KiB, scrubbed. */
export const installTailBytes = 8_192;

/** What the dependency install did; it never fails the job. */
export interface InstallOutcome {
  /** `succeeded` (exit 0), `failed` (another exit code), `timed-out` (124), `not-started` (127 from a refused spawn). */
  readonly status: "succeeded" | "failed" | "timed-out" | "not-started";
  readonly exitCode: number;
  readonly durationMs: number;
  /** The last 8 KiB of its interleaved output, scrubbed. */
  readonly outputTail: string;
  readonly truncated: boolean;
  /** Untracked, not ignored paths it created, now in `.git/info/exclude` so no `git add -A` sweeps them up. */
  readonly excluded: readonly string[];
}

/** Untracked and not ignored paths, a wholly untracked directory as one `dir/` entry. */
async function untrackedPaths(git: CheckoutGit): Promise<Set<string>> {
  const listed = await git.run(["ls-files", "--others", "--exclude-standard", "--directory", "-z"]);
  return new Set(listed.split("\0").filter(Boolean));
}

/** The most bytes of patterns appended by one sandboxed command (its text is bounded at 64 KiB). */
const appendChunkBytes = 48 * 1024;

/**
 * Appends `text` to the checkout's `.git/info/exclude` from inside the sandbox: after the
 * install ran, `.git/info/` may hold anything (a link out, say), so the server does not write
 * there itself.
 */
async function appendExclusions(git: CheckoutGit, lines: readonly string[]): Promise<void> {
  let chunk: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    await git.script(`mkdir -p .git/info && printf '%s\\n' ${chunk.map(shellArgument).join(" ")} >> .git/info/exclude`);
    chunk = [];
    bytes = 0;
  };
  for (const line of lines) {
    const size = Buffer.byteLength(line, "utf8") + 4;
    if (bytes + size > appendChunkBytes) await flush();
    chunk.push(line);
    bytes += size;
  }
  await flush();
}

/**
 * A `.git/info/exclude` pattern matching exactly one path from the root: glob characters and
 * trailing spaces (which git drops from a pattern) escaped. A line break cannot be written in a
 * pattern at all, so there it matches any one character: that path, and at most a sibling or
 * two whose names differ from it just there.
 */
function anchoredPattern(path: string): string {
  const escaped = path
    .replace(/[\\*?[\]!#]/g, (character) => `\\${character}`)
    .replace(/[\r\n]/g, "?")
    .replace(/ +$/, (spaces) => "\\ ".repeat(spaces.length));
  return `/${escaped}`;
}

/** The scrub each outcome's output was scrubbed with, for {@link installNote}'s quote of the command. */
const outcomeScrubs = new WeakMap<InstallOutcome, (text: string) => string>();

/**
 * Runs the body's install command before the first pass: `/bin/sh -c <command>` at the checkout
 * root in the job's sandbox (its environment and network), bounded by `timeoutMs`, with a
 * heartbeat every `heartbeatMs` (0: none) for the inactivity watchdog from the call to its end,
 * the git listings before and after the command included. Whatever it left untracked and not
 * ignored is excluded from git before the agent starts. Never throws for the command's failure.
 */
export async function runDependencyInstall(options: {
  /** The job's command runtime on the checkout. */
  readonly runtime: CommandRuntime;
  readonly command: string;
  /** Git on the checkout, in the job's sandbox. */
  readonly git: CheckoutGit;
  readonly timeoutMs: number;
  readonly heartbeatMs: number;
  readonly onHeartbeat: () => void;
  readonly scrub: (text: string) => string;
  readonly signal: AbortSignal;
}): Promise<InstallOutcome> {
  const heartbeat = options.heartbeatMs > 0 ? setInterval(options.onHeartbeat, options.heartbeatMs) : undefined;
  try {
    return await install(options);
  } finally {
    if (heartbeat) clearInterval(heartbeat);
  }
}

async function install(options: Parameters<typeof runDependencyInstall>[0]): Promise<InstallOutcome> {
  const before = await untrackedPaths(options.git);
  const result = await runServerCommand(options.runtime, {
    command: options.command,
    timeoutMs: options.timeoutMs,
    tailBytes: installTailBytes,
    scrub: options.scrub,
    signal: options.signal,
  });
  options.signal.throwIfAborted();
  const excluded = [...(await untrackedPaths(options.git))].filter((path) => !before.has(path));
  if (excluded.length > 0) {
    await appendExclusions(options.git, [
      "",
      "# Castellan: created by the dependency install",
      ...excluded.map(anchoredPattern),
    ]);
  }
  const status =
    result.outcome === "timeout"
      ? "timed-out"
      : result.outcome === "spawn-failed"
        ? "not-started"
        : result.exitCode === 0
          ? "succeeded"
          : "failed";
  const outcome: InstallOutcome = {
    status,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    outputTail: result.output,
    truncated: result.truncated,
    excluded,
  };
  outcomeScrubs.set(outcome, options.scrub);
  return outcome;
}

/**
 * The install's note for every pass's instructions: what ran, how it ended, and its output's
 * tail. The command is quoted scrubbed like the output: with `scrub`, else with the scrub the
 * outcome's output was (an outcome of {@link runDependencyInstall}).
 */
export function installNote(
  command: string,
  outcome: InstallOutcome | undefined,
  scrub?: (text: string) => string,
): string {
  if (!outcome) return "";
  const scrubbed = (scrub ?? outcomeScrubs.get(outcome) ?? ((text: string) => text))(command);
  const how = {
    succeeded: "succeeded",
    failed: `failed with exit code ${outcome.exitCode}`,
    "timed-out": "was stopped at its time limit (exit code 124)",
    "not-started": "could not be started (exit code 127)",
  }[outcome.status];
  const lines = [
    "## Dependency install",
    `The server ran \`${scrubbed.replace(/`/g, "'")}\` at the checkout root before this pass; it ${how} in ${outcome.durationMs} ms.`,
  ];
  if (outcome.status !== "succeeded") {
    lines.push(
      "Dependencies may be missing: install what your work needs yourself, or work around it, and say so in your summary.",
    );
  }
  if (outcome.excluded.length > 0) {
    lines.push(
      `What it created is excluded from git: ${outcome.excluded.slice(0, 20).join(", ")}${outcome.excluded.length > 20 ? ", ..." : ""}.`,
    );
  }
  if (outcome.outputTail.trim() !== "") {
    lines.push(
      outcome.truncated ? "The last 8 KiB of its output:" : "Its output:",
      "```text",
      outcome.outputTail.replace(/```/g, "'''").trimEnd(),
      "```",
    );
  }
  return lines.join("\n");
}
