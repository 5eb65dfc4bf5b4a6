import type { Session } from "../../kernel/session/session.js";
import type { GitInvocation, GitOutcome } from "./host-git.js";
import { filterOverrideVariables, gitSafetyArguments, probeGitVariables } from "./safety.js";
import { runSandboxedShell, shellArgument } from "./sandboxed-git.js";

// The environment probe's git, run where the agent's commands run: in the Session's sandbox.
// Whatever the checkout's config names (through `.git/commondir`, `info/attributes`, alternates
// or an include) then runs confined like any command of the agent. The probe's own options and
// variables still apply, so its answers are the host runner's answers: they keep a planted
// filter from holding `status` until the timeout, they are not the boundary.
//
// The variables are exported by the script rather than passed as `env`: the Session's
// environment policy (`includeOnly`) may drop names it is given, and runSandboxedGit's prelude
// would replace the probe's GIT_CONFIG_* list with its own, built by word-splitting driver names.

/**
 * Variables that choose which repository, index or config git reads. The Session's environment
 * may carry them from the host; the probe describes the working directory, so they are unset.
 */
const repositoryVariables = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_CEILING_DIRECTORIES",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
];

/**
 * The shell script of one probe invocation: the repository variables unset, the probe's
 * variables and filter overrides exported, then `git <safety options> -C <cwd> <args>` with its
 * standard error discarded (the probe reads only standard output, and a noisy stderr must not
 * count as an overflow). Every value is quoted.
 */
export function sandboxedProbeScript(invocation: GitInvocation): string {
  const variables = { ...probeGitVariables, ...filterOverrideVariables(invocation.filterDrivers ?? []) };
  const exports = Object.entries(variables).map(([name, value]) => shellArgument(`${name}=${value}`));
  const command = [invocation.git, ...gitSafetyArguments, "-C", invocation.cwd, ...invocation.args];
  return [
    `unset ${repositoryVariables.join(" ")}`,
    `export ${exports.join(" ")}`,
    `exec ${command.map(shellArgument).join(" ")} 2>/dev/null`,
  ].join("\n");
}

/**
 * Runs one probe invocation in `session`'s sandbox through {@link runSandboxedShell} (the
 * Session's supervisor, sandbox and environment policy) and answers as the host's `runGit`
 * does: `exited` with git's status and standard output, `overflowed` when standard output
 * passed `maxOutputBytes` (default 64 KiB; 1,024 to 16 MiB, as runSessionCommand bounds it;
 * outside that the invocation fails), `failed` when it timed out, was stopped, died by a signal,
 * or could not start (the Session closing, too many live commands, a script over 64 KiB). The
 * caller decides that the Session is sandboxed; this runs wherever its commands run. Never rejects.
 */
export async function runSandboxedProbeGit(session: Session, invocation: GitInvocation): Promise<GitOutcome> {
  const outcome = await runSandboxedShell(session, {
    script: sandboxedProbeScript(invocation),
    timeoutMs: invocation.timeoutMs,
    maxOutputBytes: invocation.maxOutputBytes ?? defaultMaxOutputBytes,
  });
  if (outcome.kind === "failed") return { kind: "failed", cause: outcome.cause ?? new Error(outcome.reason) };
  if (outcome.kind === "overflowed") return outcome;
  return { kind: "exited", code: outcome.code, stdout: outcome.stdout };
}

const defaultMaxOutputBytes = 64 * 1024;
