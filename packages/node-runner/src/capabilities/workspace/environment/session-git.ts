import { errorMessage } from "@castellan/harness";
import type { Session } from "../../../kernel/session/session.js";
import { commandContainmentOf } from "../../commands/index.js";
import { hostProbeGit, type ProbeGit, sandboxedProbeGit, unavailableProbeGit } from "./git-runners.js";
import type { ResolvedEnvironmentOptions } from "./options.js";

/**
 * Where the probe's git runs for a Session, decided per probe (once per Run):
 *
 * - in the Session's sandbox, when its `exec_command` is Castellan's and sandboxed: there the
 *   agent's commands can write `.git` internals the sandbox does not protect (`commondir`,
 *   `info/`, alternates), so a git the host ran would read configuration the agent wrote;
 * - on the host, when its commands are Castellan's and uncontained (`sandbox: "none"`), where
 *   the agent's commands already run as the host's user, or when it has no command tools, where
 *   the file tools refuse all of `.git` (`path_protected`) and nothing the agent does writes it;
 * - nowhere (every git fact unknown) when the Session cannot be found, or whether its commands
 *   are sandboxed cannot be told: not knowing is never taken as "no sandbox".
 *
 * A Session whose agent writes the working directory some other way (a tool of its own) is the
 * host's to judge; the probe cannot see it.
 */
export function sessionProbeGit(session: Session | undefined, options: ResolvedEnvironmentOptions): ProbeGit {
  if (session === undefined) return unavailableProbeGit("The Session of this Run is not open in the Runner.");
  let containment: ReturnType<typeof commandContainmentOf>;
  try {
    containment = commandContainmentOf(session);
  } catch (error) {
    return unavailableProbeGit(
      `Whether Session "${session.id}" runs its commands in a sandbox could not be told: ${errorMessage(error)}`,
    );
  }
  return containment === "sandboxed" ? sandboxedProbeGit(session, options) : hostProbeGit(options);
}
