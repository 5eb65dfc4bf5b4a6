import { NodeSession, type Session } from "../../../kernel/session/session.js";
import { commandRuntimeOfTool } from "../session/exec-command-tool.js";

/**
 * Where a Session's commands run, as {@link runSessionCommand} would run one: `sandboxed` when
 * its `exec_command` is Castellan's and runs under a sandbox layer (an OS `workspace()`, or the
 * sandbox plugin's runtime); `uncontained` when it is Castellan's and runs on the host
 * (`sandbox: "none"`, the unsandboxed command plugin); `none` when the Session has no such
 * `exec_command` (no command tools, or another implementation of that name, which Castellan
 * cannot run a command through).
 */
export type CommandContainment = "sandboxed" | "uncontained" | "none";

/**
 * Tells {@link CommandContainment} for `session` now. Throws what the runtime lookup throws
 * (a Session whose runtime is gone); callers that gate trust on the answer treat a throw as
 * "not known", never as `none`.
 */
export function commandContainmentOf(session: Session): CommandContainment {
  if (!(session instanceof NodeSession)) return "none";
  const bound = session.boundToolScope("exec_command");
  const runtimeOf = bound ? commandRuntimeOfTool(bound.tool) : undefined;
  if (!bound || !runtimeOf) return "none";
  return runtimeOf(bound.scope).commands.containment;
}
