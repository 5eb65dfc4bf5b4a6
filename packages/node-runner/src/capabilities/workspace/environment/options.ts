import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidOptionsError } from "../../../kernel/errors/errors.js";

/** Options of {@link probeWorkspaceEnvironment} and `createWorkspaceEnvironmentPlugin`. */
export interface WorkspaceEnvironmentOptions {
  /**
   * The directory to describe: a `file:` URL, or its text (`"file:///home/me/project/"`). Any
   * other URL, a plain path or a malformed URL is refused with `invalid_options`. It need not
   * exist when the options are checked; a missing directory is probed as `unknown`.
   */
  readonly workingDirectory: URL | string;
  /**
   * The git executable: a command name looked up on `PATH` (only its absolute entries), or an
   * absolute path. Default `"git"`. A relative path (`./git`) is refused, since it would be
   * resolved against the working directory, which the agent can write.
   */
  readonly git?: string;
  /**
   * How long each git invocation may take, in milliseconds, before it is killed and the fact it
   * was asked for is `unknown`. An integer from 1 to {@link maxGitTimeoutMs}. Default
   * {@link defaultGitTimeoutMs}. A probe makes at most seven invocations, six of them at once.
   */
  readonly timeoutMs?: number;
}

/** The default of {@link WorkspaceEnvironmentOptions.timeoutMs}: two seconds. */
export const defaultGitTimeoutMs = 2_000;

/** The largest {@link WorkspaceEnvironmentOptions.timeoutMs} accepted: one minute. */
export const maxGitTimeoutMs = 60_000;

/** {@link WorkspaceEnvironmentOptions} checked, with defaults applied. */
export interface ResolvedEnvironmentOptions {
  /** The working directory as a normalized absolute path. */
  readonly workingDirectory: string;
  readonly git: string;
  readonly timeoutMs: number;
}

const known = ["workingDirectory", "git", "timeoutMs"];

/**
 * Checks the options and applies the defaults. Throws {@link InvalidOptionsError} naming the
 * field: an unknown key, a working directory that is not a `file:` URL, a relative or empty
 * `git`, a `timeoutMs` that is not an integer in range.
 */
export function resolveEnvironmentOptions(options: WorkspaceEnvironmentOptions): ResolvedEnvironmentOptions {
  const where = "workspace environment options";
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new InvalidOptionsError(`The ${where} must be an object with a workingDirectory.`);
  }
  for (const key of Object.keys(options)) {
    if ((options as unknown as Record<string, unknown>)[key] !== undefined && !known.includes(key)) {
      throw new InvalidOptionsError(`${key} is not one of the ${where}; they are ${known.join(", ")}.`);
    }
  }
  const git = options.git ?? "git";
  if (typeof git !== "string" || git === "" || git.includes("\u0000") || (git.includes("/") && !isAbsolute(git))) {
    throw new InvalidOptionsError(
      `git must be a command name (looked up on PATH) or an absolute path; got ${JSON.stringify(git)}.`,
    );
  }
  const timeoutMs = options.timeoutMs ?? defaultGitTimeoutMs;
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > maxGitTimeoutMs) {
    throw new InvalidOptionsError(
      `timeoutMs must be an integer from 1 to ${maxGitTimeoutMs} (milliseconds per git invocation); got ${JSON.stringify(timeoutMs)}.`,
    );
  }
  return { workingDirectory: directoryPath(options.workingDirectory), git, timeoutMs };
}

function directoryPath(value: unknown): string {
  const shown = value instanceof URL ? value.href : JSON.stringify(value);
  const rule = `workingDirectory must be a file: URL (a URL or its text, e.g. "file:///home/me/project/"); got ${shown}.`;
  let url: URL;
  if (value instanceof URL) {
    url = value;
  } else if (typeof value === "string" && URL.canParse(value)) {
    url = new URL(value);
  } else {
    throw new InvalidOptionsError(rule);
  }
  if (url.protocol !== "file:") throw new InvalidOptionsError(rule);
  let path: string;
  try {
    // Throws for a remote host (file://server/share) and an encoded `/`.
    path = fileURLToPath(url);
  } catch {
    throw new InvalidOptionsError(`${rule} It does not name a local path.`);
  }
  if (path.includes("\u0000")) throw new InvalidOptionsError(`${rule} Its path contains a NUL character.`);
  // Normalized (no trailing `/`, no `.` or `..`), as it is shown to the model.
  return resolve(path);
}
