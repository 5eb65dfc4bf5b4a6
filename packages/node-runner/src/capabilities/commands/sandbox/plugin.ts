import { CastellanError, errorMessage, ToolInputError } from "@castellan/harness";
import type { SandboxResolver } from "../../../kernel/plugins/types.js";
import { resolveSandboxPolicy, type SandboxPolicyConfig } from "../../../platform/sandbox/config.js";
import { SandboxConfigError, SandboxUnavailableError } from "../../../platform/sandbox/errors.js";
import { createRequestNetworkAccessTool } from "../../../platform/sandbox/network-access.js";
import { checkSandboxDependencies } from "../../../platform/sandbox/preflight.js";
import { leaseProfile } from "../../../platform/sandbox/profile.js";
import {
  inProcessSandboxRuntimeAdapter,
  type SandboxRuntimeAdapter,
  sandboxRuntimeVersion,
} from "../../../platform/sandbox/runtime-adapter.js";
import { checkRuntimeNotWritable } from "../../../platform/sandbox/runtime-not-writable.js";
import { type CommandSessionOptions, resolveCommandSessionOptions } from "../session/options.js";
import { applyCommandSession, type CommandSessionPlugin } from "../session/plugin.js";
import { type CommandSessionLayer, CommandSessionRuntime } from "../session/runtime.js";

/** The name of the plugin {@link createSandboxRuntimeCommandSessionPlugin} returns. */
export const sandboxRuntimeCommandSessionPluginName = "castellan.sandbox-runtime-command-session";

/** Options of {@link createSandboxRuntimeCommandSessionPlugin}. */
export interface SandboxRuntimeCommandSessionOptions {
  /** The sandbox agents declare as `sandbox: specifier`, and its explicit policy. */
  readonly sandbox: { readonly specifier: string; readonly config: SandboxPolicyConfig };
  /** The options of `createCommandSessionPlugin`; `shell` must take the command after `-c`. */
  readonly command: CommandSessionOptions;
  /** Transforms argv and env only; omitted, the pinned `@anthropic-ai/sandbox-runtime` runs in-process. */
  readonly runtimeAdapter?: SandboxRuntimeAdapter;
}

/** The sandboxed command plugin: the unsandboxed one's host methods, under its own name. */
export interface SandboxRuntimeCommandSessionPlugin extends Omit<CommandSessionPlugin, "name"> {
  readonly name: typeof sandboxRuntimeCommandSessionPluginName;
}

const where = "createSandboxRuntimeCommandSessionPlugin";
const adapterMethods = ["initialize", "allowNetworkHosts", "prepare", "finalize", "reset"] as const;

/**
 * Registers `exec_command` and `command_session` (as `createCommandSessionPlugin` does, over
 * the same runtime) whose commands run in `@anthropic-ai/sandbox-runtime` 0.0.83 (bubblewrap
 * and seccomp on Linux), and a sandbox resolver for `sandbox.specifier`: every agent receiving
 * `exec_command` declares `sandbox: "<specifier>"`. Another specifier fails the open
 * (`sandbox_not_found`); a call whose `ctx.sandbox` is not this plugin's lease value is refused
 * in `admit` (`sandbox_required`) and nothing spawns.
 *
 * Opening a Session leases the profile: the first lease checks for `bwrap`, `socat` and `rg`
 * and initializes the runtime (else `sandbox_unavailable`, never an unsandboxed fallback); the
 * last close resets it. One profile may be active per process (`sandbox_profile_conflict`).
 * Each approved command becomes its final argv just before spawn, with the environment
 * policy's variables; the runtime's denials are appended to that command's stderr.
 *
 * Also registers `request_network_access { hosts, reason }` (not read-only; admission
 * `{ hosts, reason }` with canonical hosts): approved hosts join the allow list every Session
 * of this Runner (plugin application) shares, through `runtimeAdapter.allowNetworkHosts`,
 * re-applied when the profile initializes again; a host in `deniedDomains` is refused.
 *
 * @throws SandboxConfigError (`sandbox_config_invalid`), CommandOptionsError, WorkspaceRootError, EnvironmentPolicyError.
 */
export function createSandboxRuntimeCommandSessionPlugin(
  options: SandboxRuntimeCommandSessionOptions,
): SandboxRuntimeCommandSessionPlugin {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new SandboxConfigError(`${where}: options are required: { sandbox, command, runtimeAdapter? }.`);
  }
  for (const key of Object.keys(options)) {
    if (!["sandbox", "command", "runtimeAdapter"].includes(key)) {
      throw new SandboxConfigError(
        `${where}: ${key} is not an option; the options are sandbox, command, runtimeAdapter.`,
      );
    }
  }
  const sandbox = options.sandbox as Partial<SandboxRuntimeCommandSessionOptions["sandbox"]> | undefined;
  if (
    sandbox === null ||
    typeof sandbox !== "object" ||
    typeof sandbox.specifier !== "string" ||
    sandbox.specifier === ""
  ) {
    throw new SandboxConfigError(`${where}: sandbox must be { specifier: a non-empty string, config }.`);
  }
  const specifier = sandbox.specifier;
  const policy = resolveSandboxPolicy(sandbox.config as SandboxPolicyConfig);
  const resolved = resolveCommandSessionOptions(options.command);
  if (resolved.shell.arguments.length !== 1 || resolved.shell.arguments[0] !== "-c") {
    throw new SandboxConfigError(`${where}: command.shell must take the command after "-c" (the runtime wraps it so).`);
  }
  const adapter = options.runtimeAdapter ?? inProcessSandboxRuntimeAdapter();
  for (const method of adapterMethods) {
    if (typeof (adapter as unknown as Record<string, unknown>)[method] !== "function") {
      throw new SandboxConfigError(
        `${where}: runtimeAdapter needs ${adapterMethods.join(", ")}; ${method} is missing.`,
      );
    }
  }
  // The value every Session of this plugin's lease has as ctx.sandbox.
  const sandboxValue = Object.freeze({ kind: "sandbox-runtime", specifier });
  let leases = 0;
  const layer: CommandSessionLayer = {
    spawn: {
      prepare: (request) => {
        if (leases === 0) throw new Error("No Session holds this sandbox's lease; nothing runs unsandboxed.");
        return adapter.prepare(request);
      },
      finalize: (request) => adapter.finalize(request),
    },
    checkCall(ctx) {
      if (ctx.sandbox !== sandboxValue) {
        throw new ToolInputError(
          "sandbox_required",
          `exec_command runs only in the sandbox "${specifier}": the agent must declare sandbox: "${specifier}". Nothing was run.`,
        );
      }
    },
  };
  const runtime = new CommandSessionRuntime(resolved, layer);
  const profileKey = JSON.stringify(policy);
  /** A resolver whose first lease re-applies `grants` (one plugin application's) after initialize. */
  const createResolver = (grants: ReadonlySet<string>): SandboxResolver => ({
    async open(request) {
      if (request.specifier !== specifier) {
        throw new CastellanError(
          "sandbox_not_found",
          `The sandbox "${request.specifier}" is not known; this Runner's sandbox is "${specifier}".`,
        );
      }
      request.signal.throwIfAborted();
      checkRuntimeNotWritable(policy, [], where);
      const release = await leaseProfile(profileKey, adapter, async () => {
        checkSandboxDependencies();
        try {
          await adapter.initialize(policy);
          // Grants outlive a reset within one Runner; a fresh Runner starts from the policy.
          if (grants.size > 0) await adapter.allowNetworkHosts([...grants]);
        } catch (error) {
          if (error instanceof CastellanError) throw error;
          throw new SandboxUnavailableError(
            `The sandbox runtime (${"@anthropic-ai/sandbox-runtime"} ${sandboxRuntimeVersion}) did not initialize: ${errorMessage(error)}. Nothing runs unsandboxed instead.`,
            [],
            { cause: error },
          );
        }
      });
      leases++;
      let closed = false;
      return {
        sandbox: sandboxValue,
        async close() {
          if (closed) return;
          closed = true;
          leases--;
          await release();
        },
      };
    },
  });
  const checkNetworkCall = (ctx: { readonly sandbox: unknown }) => {
    if (ctx.sandbox !== sandboxValue) {
      throw new ToolInputError(
        "sandbox_required",
        `request_network_access grants hosts only in the sandbox "${specifier}": the agent must declare sandbox: "${specifier}". Nothing was granted.`,
      );
    }
  };
  const plugin: SandboxRuntimeCommandSessionPlugin = {
    name: sandboxRuntimeCommandSessionPluginName,
    apply(host) {
      applyCommandSession(host, runtime);
      // Every Session of this Runner (this application) shares its grants; never stored in history.
      const grants = new Set<string>();
      const scope = {
        checkCall: checkNetworkCall,
        allowedDomains: policy.network.allowedDomains,
        deniedDomains: policy.network.deniedDomains,
        grants,
        apply: async (hosts: readonly string[]) => {
          // No lease: the next first lease re-applies the grants after initialize.
          if (leases > 0) await adapter.allowNetworkHosts(hosts);
        },
      };
      host.registerTool(createRequestNetworkAccessTool(() => scope));
      host.registerSandboxResolver(createResolver(grants));
    },
    close: () => runtime.closeAll(),
    sessionCommands: (sessionId) => runtime.sessionCommands(sessionId),
    stopSessionCommand: (sessionId, commandId) => runtime.stopSessionCommand(sessionId, commandId),
  };
  return Object.freeze(plugin);
}
