import { type CommandRuntime, createCommandRuntime } from "@castellan/node-runner";
import { type JobWorkspaceOptions, jobSandbox } from "./job-workspace.js";

/** Where the server's own commands for a job run, and what they may reach. */
export interface JobCommandsOptions extends JobWorkspaceOptions {
  /** Aborting it stops the sandbox's open. */
  readonly signal: AbortSignal;
}

/**
 * Opens the command runtime the server runs its own commands in (install, validation,
 * reproduction, git): rooted at `root`, in an OS sandbox of its own with exactly the policy
 * of the agent's workspace (`jobSandbox`). No Session, no agent: the server is the authority
 * over its own commands. An OS sandbox that will not open rejects. The caller closes it.
 */
export function openJobCommands(options: JobCommandsOptions): Promise<CommandRuntime> {
  return createCommandRuntime({
    root: options.root,
    environment: options.environment,
    sandbox: jobSandbox(options),
    signal: options.signal,
  });
}

/** {@link openJobCommands} around `use`, closed after it whatever it did. */
export async function withJobCommands<Result>(
  options: JobCommandsOptions,
  use: (commands: CommandRuntime) => Promise<Result>,
): Promise<Result> {
  const commands = await openJobCommands(options);
  try {
    return await use(commands);
  } finally {
    await commands.close();
  }
}
