import { pathToFileURL } from "node:url";
import { type EnvironmentPolicy, type SandboxFilesystemPolicy, workspace } from "@castellan/node-runner";

/** What a job's workspace is rooted at and what its commands may reach. */
export interface JobWorkspaceOptions {
  /** The directory the workspace is rooted at: the checkout, a proof worktree, a probe's directory. */
  readonly root: string;
  /** The job's network rules; default none at all. */
  readonly network?:
    | { readonly allowedDomains?: readonly string[]; readonly deniedDomains?: readonly string[] }
    | undefined;
  readonly environment: EnvironmentPolicy;
  /** Added to the workspace's filesystem policy (the server's own paths denied, the job's home writable). */
  readonly filesystem?: SandboxFilesystemPolicy | undefined;
}

/**
 * The workspace every Session of a job has, the agent's and the server's own alike: rooted at
 * `root`, commands in the OS sandbox with exactly the job's network (no other requests
 * allowed), environment and filesystem policies. Nothing of the server user's home directory
 * is readable (`homeReads: "none"`): a job's commands see the job's own home, which its
 * filesystem policy re-admits, and nothing else there.
 */
export function jobWorkspace(options: JobWorkspaceOptions) {
  return workspace({
    root: pathToFileURL(`${options.root}/`),
    sandbox: "os",
    network: {
      allowedDomains: [...(options.network?.allowedDomains ?? [])],
      deniedDomains: [...(options.network?.deniedDomains ?? [])],
      allowRequests: false,
    },
    homeReads: "none",
    commands: { environment: options.environment },
    ...(options.filesystem ? { filesystem: options.filesystem } : {}),
  });
}
