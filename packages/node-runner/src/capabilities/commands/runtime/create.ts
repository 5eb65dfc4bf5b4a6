import { CastellanError, errorMessage } from "@castellan/harness";
import { resolveEnvironmentPolicy } from "../../../platform/environment/environment-policy.js";
import { bindWorkspaceRootSync } from "../../../platform/paths/root.js";
import { resolveSandboxPolicy } from "../../../platform/sandbox/config.js";
import { SandboxUnavailableError } from "../../../platform/sandbox/errors.js";
import { checkSandboxDependencies } from "../../../platform/sandbox/preflight.js";
import { sandboxRuntimeVersion } from "../../../platform/sandbox/runtime-adapter.js";
import { checkRuntimeNotWritable } from "../../../platform/sandbox/runtime-not-writable.js";
import { workspaceSandboxPolicy } from "../../../platform/sandbox/workspace-policy.js";
import { createSandboxWorkerRuntimeAdapter } from "../../../platform/sandbox-worker/adapter.js";
import { sandboxWorkerEntry } from "../../../platform/sandbox-worker/entry.js";
import { CommandRuntime, type CommandRuntimeParts } from "./command-runtime.js";
import { CommandOptionsError } from "./errors.js";
import type { CommandRuntimeOptions, CommandRuntimeSandboxOptions } from "./options.js";
import { checkShell, resolveCommandLimits } from "./settings.js";

const where = "createCommandRuntime";
const optionKeys = new Set(["root", "environment", "sandbox", "limits", "shell", "signal"]);
const limitKeys = new Set(["executionTimeoutMs", "maxOutputBytesPerStream", "killGraceMs", "maxLiveCommands"]);
const sandboxKeys = new Set(["network", "filesystem", "homeReads"]);

/**
 * Opens a command runtime over `root`: with `sandbox: "os"` (the default) or sandbox options,
 * a sandbox worker of its own (a child process holding `@anthropic-ai/sandbox-runtime` 0.0.83)
 * whose policy is the one `workspace()` gives a Session: writes only under the root's real
 * path and the worker's temporary directory, the root's (and every nested repository's) `.git`
 * internals, Castellan state and setting files denied, home directory reads limited by
 * `homeReads` and `filesystem.allowRead`, and only `network.allowedDomains` reachable. It never
 * falls back to running unsandboxed. With `"none"`, commands run uncontained. Close it when done.
 *
 * @throws CommandOptionsError (`command_options_invalid`) for a missing, unknown or bad option;
 *   WorkspaceRootError (`workspace_root_invalid`); EnvironmentPolicyError (`environment_invalid`);
 *   SandboxConfigError (`sandbox_config_invalid`); SandboxUnavailableError (`sandbox_unavailable`)
 *   without bubblewrap, socat or ripgrep or when the runtime will not start; SandboxWorkerMissingError
 *   (`sandbox_worker_missing`) without the compiled worker; the signal's reason when aborted.
 */
export async function createCommandRuntime(options: CommandRuntimeOptions): Promise<CommandRuntime> {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new CommandOptionsError(`${where}: options are required: { root, ... }.`);
  }
  onlyKeys(options, optionKeys, "");
  if (options.root === undefined) throw new CommandOptionsError(`${where}: root is required: an existing directory.`);
  const limits = options.limits ?? {};
  if (limits === null || typeof limits !== "object")
    throw new CommandOptionsError(`${where}: limits must be an object.`);
  onlyKeys(limits, limitKeys, "limits.");
  const runtimeLimits = resolveCommandLimits(limits, where, "limits.");
  const shell = checkShell(options.shell, where);
  const environment = resolveEnvironmentPolicy(options.environment ?? { inherit: "core" }, where);
  const sandbox = sandboxOptions(options.sandbox);
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new CommandOptionsError(`${where}: signal must be an AbortSignal.`);
  }
  const root = bindWorkspaceRootSync(options.root);
  const parts: CommandRuntimeParts = { root, shell, environment, limits: runtimeLimits };
  signal?.throwIfAborted();
  if (sandbox === "none") return new CommandRuntime(parts);
  return openSandboxed(parts, sandbox, signal);
}

/** Opens the runtime's sandbox worker on the root's policy; nothing is left running when it fails. */
async function openSandboxed(
  parts: CommandRuntimeParts,
  sandbox: CommandRuntimeSandboxOptions,
  signal: AbortSignal | undefined,
): Promise<CommandRuntime> {
  const declared = resolveSandboxPolicy(
    {
      network: {
        allowedDomains: [...(sandbox.network?.allowedDomains ?? [])],
        deniedDomains: [...(sandbox.network?.deniedDomains ?? [])],
      },
      ...(sandbox.filesystem ? { filesystem: sandbox.filesystem } : {}),
    },
    process.env.HOME,
    `${where}: the sandbox policy`,
  );
  checkSandboxDependencies();
  const policy = await workspaceSandboxPolicy(parts.root, declared, { homeReads: sandbox.homeReads ?? "tool-paths" });
  checkRuntimeNotWritable(policy, [{ what: "the compiled sandbox worker", path: sandboxWorkerEntry() }], where);
  const adapter = createSandboxWorkerRuntimeAdapter();
  try {
    signal?.throwIfAborted();
    await adapter.initialize(policy);
  } catch (error) {
    await adapter.terminate();
    if (error instanceof CastellanError || signal?.aborted) throw error;
    throw new SandboxUnavailableError(
      `The sandbox runtime (@anthropic-ai/sandbox-runtime ${sandboxRuntimeVersion}) did not initialize in the command runtime's worker: ${errorMessage(error)}. Nothing runs unsandboxed instead.`,
      [],
      { cause: error },
    );
  }
  return new CommandRuntime({
    ...parts,
    spawnLayer: {
      prepare: (request) => adapter.prepare(request),
      finalize: (request) => adapter.finalize(request),
    },
    sandbox: Object.freeze({
      policy,
      allowNetworkHosts: (hosts: readonly string[]) => Promise.resolve(adapter.allowNetworkHosts(hosts)),
    }),
    release: async () => {
      try {
        await adapter.reset();
      } finally {
        await adapter.terminate();
      }
    },
  });
}

function sandboxOptions(value: CommandRuntimeOptions["sandbox"]): "none" | CommandRuntimeSandboxOptions {
  if (value === undefined || value === "os") return {};
  if (value === "none") return "none";
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new CommandOptionsError(`${where}: sandbox must be "os", "none" or the OS sandbox's options.`);
  }
  onlyKeys(value, sandboxKeys, "sandbox.");
  if (value.homeReads !== undefined && value.homeReads !== "tool-paths" && value.homeReads !== "none") {
    throw new CommandOptionsError(`${where}: sandbox.homeReads must be "tool-paths" or "none".`);
  }
  return value;
}

function onlyKeys(value: object, allowed: ReadonlySet<string>, prefix: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) {
      throw new CommandOptionsError(
        `${where}: ${prefix}${key} is not an option; the options are ${[...allowed].map((name) => `${prefix}${name}`).join(", ")}.`,
      );
    }
  }
}
