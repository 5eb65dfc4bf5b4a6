import type { EnvironmentPolicy } from "../../../platform/environment/environment-policy.js";
import type { CommandShell } from "../../../platform/process/index.js";
import type { SandboxFilesystemPolicy } from "../../../platform/sandbox/config.js";
import type { WorkspaceHomeReads } from "../../../platform/sandbox/workspace-policy.js";

/** The bounds of a command runtime's supervisor. */
export interface CommandRuntimeLimits {
  /** A command's deadline from spawn when its request names none (then `timeout`, exit code 124). Default 120,000 ms; 1 to 2,147,483,647. */
  readonly executionTimeoutMs?: number;
  /** Bytes kept of each stream (first and last halves). Default 65,536; 1,024 to 16,777,216. */
  readonly maxOutputBytesPerStream?: number;
  /** How long a group has between SIGTERM and SIGKILL. Default 2,000 ms; 0 to 60,000. */
  readonly killGraceMs?: number;
  /** The most commands of one owner alive at once. Default 16; 1 to 1,024. */
  readonly maxLiveCommands?: number;
}

/** The OS sandbox a runtime's commands run in: the policy `workspace()` gives its own. */
export interface CommandRuntimeSandboxOptions {
  /** Domain patterns commands may reach, and those refused even when allowed. Default: no external host. */
  readonly network?: {
    readonly allowedDomains?: readonly string[];
    readonly deniedDomains?: readonly string[];
  };
  /** Added to the root's policy (paths absolute or under `~`). Default: nothing added. */
  readonly filesystem?: SandboxFilesystemPolicy;
  /** What commands read of the home directory besides `filesystem.allowRead`. Default `"tool-paths"`. */
  readonly homeReads?: WorkspaceHomeReads;
}

/** Options of `createCommandRuntime`; all are checked before anything starts. */
export interface CommandRuntimeOptions {
  /** An existing directory (a `file:` URL, its text, or an absolute path): where commands run and what `cwd` resolves beneath. */
  readonly root: URL | string;
  /** Which variables of the host's environment commands get, computed at each spawn. Default `{ inherit: "core" }`. */
  readonly environment?: EnvironmentPolicy;
  /**
   * `"os"` (the default) or an object: commands run in bubblewrap through a sandbox worker of
   * the runtime's own, writing only under the root and the runtime's temporary directory, with
   * the root's `.git` internals and setting files denied. `"none"`: commands run uncontained.
   */
  readonly sandbox?: "os" | "none" | CommandRuntimeSandboxOptions;
  /** Default: the defaults of {@link CommandRuntimeLimits}. */
  readonly limits?: CommandRuntimeLimits;
  /** The program command text is given to. Default `{ executable: "/bin/sh", arguments: ["-c"] }`. */
  readonly shell?: CommandShell;
  /** Aborting it while the runtime opens stops the open (its error is the abort reason). */
  readonly signal?: AbortSignal;
}
