import { pathToFileURL } from "node:url";
import {
  type CommandRuntimeSandboxOptions,
  type EnvironmentPolicy,
  type SandboxFilesystemPolicy,
  workspace,
} from "@castellan/node-runner";

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
 * The OS sandbox of every command of a job, the agent's and the server's own alike: exactly
 * the job's network and filesystem policies, and nothing of the server user's home directory
 * readable (`homeReads: "none"`): a job's commands see the job's own home, which its
 * filesystem policy re-admits, and nothing else there.
 */
export function jobSandbox(options: JobWorkspaceOptions): CommandRuntimeSandboxOptions {
  return {
    network: {
      allowedDomains: [...(options.network?.allowedDomains ?? [])],
      deniedDomains: [...(options.network?.deniedDomains ?? [])],
    },
    homeReads: "none",
    ...(options.filesystem ? { filesystem: options.filesystem } : {}),
  };
}

/**
 * The agent's workspace of a job: rooted at `root`, commands in the OS sandbox of
 * {@link jobSandbox} (no network requests allowed) under the job's environment policy.
 */
export function jobWorkspace(options: JobWorkspaceOptions) {
  const sandbox = jobSandbox(options);
  return workspace({
    root: pathToFileURL(`${options.root}/`),
    sandbox: "os",
    network: { ...sandbox.network, allowRequests: false },
    homeReads: "none",
    commands: { environment: options.environment },
    ...(sandbox.filesystem ? { filesystem: sandbox.filesystem } : {}),
  });
}
