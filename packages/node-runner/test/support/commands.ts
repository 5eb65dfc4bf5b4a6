// A Runner whose agent has the unsandboxed command tools, for the command tests.
import { realpath } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { defineAgent, hostTool } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import {
  type CommandSessionOptions,
  type CommandSessionPlugin,
  type CommandTerminalUpdate,
  createCommandSessionPlugin,
  createNodeRunner,
  type NodeRunner,
  type NodeRunnerPlugin,
  type PermissionPreset,
} from "../../src/index.js";

/** What {@link commandRunner} made. */
export interface CommandRunner {
  readonly runner: NodeRunner;
  readonly commands: CommandSessionPlugin;
  readonly model: ReturnType<typeof scriptedModel>;
  /** Every onTerminalUpdate, in order. */
  readonly updates: CommandTerminalUpdate[];
  /** The working directory's real path. */
  readonly root: string;
}

/**
 * A Runner of agent `agentId` with `exec_command` and `command_session` from a command plugin
 * working in `directory` (core environment, `onTerminalUpdate` recorded), the scripted model
 * answering `steps`, and `permissions` (default full-access). `close` is handed the Runner's
 * close, which kills every command still live.
 */
export async function commandRunner(options: {
  readonly directory: string;
  readonly agentId: string;
  readonly steps: readonly ScriptedStepSource[];
  readonly commandOptions?: Partial<CommandSessionOptions>;
  readonly permissions?: PermissionPreset;
  readonly plugins?: readonly NodeRunnerPlugin[];
  readonly close: (close: () => Promise<void>) => void;
}): Promise<CommandRunner> {
  const root = await realpath(options.directory);
  const updates: CommandTerminalUpdate[] = [];
  const commands = createCommandSessionPlugin({
    workingDirectory: pathToFileURL(`${root}/`),
    environment: { inherit: "core" },
    onTerminalUpdate: (update) => void updates.push(update),
    ...options.commandOptions,
  });
  const model = scriptedModel(options.steps);
  const agent = defineAgent(options.agentId, {
    model,
    tools: [hostTool("exec_command"), hostTool("command_session")],
  });
  const runner = await createNodeRunner({
    agent,
    permissions: options.permissions ?? "full-access",
    plugins: [commands, ...(options.plugins ?? [])],
  });
  options.close(() => runner.close());
  return { runner, commands, model, updates, root };
}
