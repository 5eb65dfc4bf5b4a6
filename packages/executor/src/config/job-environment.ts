import type { EnvironmentPolicy } from "@castellan/node-runner";

/**
 * The environment of everything spawned into a job's checkout (git, the agent's commands): the
 * core variables of the server's own, without the facts about the server (`NODE_ENV`, `PORT`,
 * its own `CASTELLAN_EXECUTOR_*` settings), with `HOME` the job's own, and `set` (the job's
 * command seams: its `.npmrc`, the artifact upload variables) over them.
 */
export function jobEnvironmentPolicy(home: string, set: Readonly<Record<string, string>> = {}): EnvironmentPolicy {
  return {
    inherit: "core",
    exclude: ["NODE_ENV", "PORT", "CASTELLAN_EXECUTOR_*"],
    set: { ...set, HOME: home },
  };
}
