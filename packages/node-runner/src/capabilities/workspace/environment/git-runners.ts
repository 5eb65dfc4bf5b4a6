import type { Session } from "../../../kernel/session/session.js";
import { type GitInvocation, type GitOutcome, runGit, runSandboxedProbeGit } from "../../untrusted-git/index.js";
import type { ResolvedEnvironmentOptions } from "./options.js";

/** What one probe invocation may set besides its arguments. */
export type ProbeGitExtra = Partial<Pick<GitInvocation, "filterDrivers" | "maxOutputBytes">>;

/**
 * Runs one of the probe's git invocations in the working directory with the probe's safety
 * options, and never rejects. The probe is written against this, so where git runs (the host,
 * or a Session's sandbox) is decided once, by who builds it.
 */
export type ProbeGit = (args: readonly string[], extra?: ProbeGitExtra) => Promise<GitOutcome>;

/** Git on the host (host-git.ts): only for a working directory no sandboxed agent command can write. */
export function hostProbeGit(options: ResolvedEnvironmentOptions): ProbeGit {
  return (args, extra = {}) =>
    runGit({ git: options.git, cwd: options.workingDirectory, timeoutMs: options.timeoutMs, args, ...extra });
}

/**
 * Git in `session`'s sandbox (sandboxed-probe-git.ts), one invocation at a time: each is a
 * command of the Session and counts toward its `maxLiveCommands` (which may be as low as 1, and
 * the agent's own commands share it), so the probe's six independent questions are asked in
 * turn rather than at once. Each invocation's `timeoutMs` runs from its own start.
 */
export function sandboxedProbeGit(session: Session, options: ResolvedEnvironmentOptions): ProbeGit {
  let previous: Promise<unknown> = Promise.resolve();
  return (args, extra = {}) => {
    const invocation: GitInvocation = {
      git: options.git,
      cwd: options.workingDirectory,
      timeoutMs: options.timeoutMs,
      args,
      ...extra,
    };
    const outcome = previous.then(() => runSandboxedProbeGit(session, invocation));
    previous = outcome;
    return outcome;
  };
}

/** A runner that runs nothing and answers `failed` with `reason`: every fact git would give is unknown. */
export function unavailableProbeGit(reason: string): ProbeGit {
  return async () => ({ kind: "failed", cause: new Error(reason) });
}
