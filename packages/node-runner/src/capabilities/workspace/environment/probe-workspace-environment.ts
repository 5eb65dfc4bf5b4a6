import { resolveEnvironmentOptions, type WorkspaceEnvironmentOptions } from "./options.js";
import type { WorkspaceEnvironment } from "./types.js";

/**
 * Observes the working directory's Git facts once: repository root, main or linked worktree,
 * branch, HEAD and dirtiness. Whether it is a repository at all is decided by looking for
 * `.git` in it and its parents, so a directory outside any repository runs no git. Each fact
 * comes from its own git invocation (at most seven, each bounded by `timeoutMs`); one that
 * fails, times out or finds git missing leaves that fact `undefined`. Throws only
 * `InvalidOptionsError`, for malformed options; the probe itself never rejects. Git runs on
 * the host: for a directory only the host and uncontained commands write (the plugin runs it
 * in a sandboxed Session's sandbox instead).
 */
export async function probeWorkspaceEnvironment(options: WorkspaceEnvironmentOptions): Promise<WorkspaceEnvironment> {
  const resolved = resolveEnvironmentOptions(options);
  // The probe's code (and git's runners) loads on the first probe, not with the package.
  const { probeResolved } = await import("./probe.js");
  return await probeResolved(resolved);
}
