import {
  type BindingKind,
  type Capability,
  defineCapability,
  errorMessage,
  type JsonObject,
  type ModelRequest,
  type ResourceRequest,
  resource,
  type SandboxContribution,
  type SandboxLease,
  type Tool,
  ToolInputError,
} from "@castellan/harness";
import { builtinSectionText } from "../../../kernel/prompts/builtin-prompts.js";
import { bindWorkspaceRootSync, type WorkspaceRoot } from "../../../platform/paths/root.js";
import { WorkspaceRootError } from "../../../platform/paths/root-error.js";
import { CommandNotFoundError } from "../../../platform/process/index.js";
import { createRequestNetworkAccessTool, type NetworkAccessScope } from "../../../platform/sandbox/network-access.js";
import {
  appendContext,
  type CommandRuntime,
  type CommandSessionLayer,
  CommandSessionRuntime,
  createCommandRuntime,
  createCommandSessionTool,
  createExecCommandTool,
  type SessionCommand,
} from "../../commands/index.js";
import { deliverGuidance, SessionGuidance } from "../instructions/instructions-plugin.js";
import { applyWorkspacePatchTool } from "../tools/apply-workspace-patch.js";
import { editWorkspaceFileTool } from "../tools/edit-workspace-file.js";
import { listWorkspaceTool } from "../tools/list-workspace.js";
import { readWorkspaceFileTool } from "../tools/read-workspace-file.js";
import { workspaceImageTool } from "../tools/read-workspace-image.js";
import { searchWorkspaceTool } from "../tools/search-workspace.js";
import type { WorkspaceToolsContext } from "../tools/workspace-context.js";
import { resolveWorkspaceOptions, type WorkspaceOptions } from "./options.js";
import { createPublishWorkspaceTool } from "./publish-tool.js";
import { workspaceSectionText } from "./section.js";
import type { WorkspaceCallScope, WorkspaceSandbox, WorkspaceSession } from "./workspace-session.js";

/** The specifier an OS workspace's sandbox is declared under (inspection shows it). */
export const workspaceSandboxSpecifier = "castellan.workspace";

/** The `workspace()` capability, with the host's view of each Session's session-lifetime commands. */
export interface WorkspaceCapability extends Capability {
  readonly name: "workspace";
  /** The Session's live `lifetime: "session"` commands, oldest first, with their bounded output since launch. */
  sessionCommands(sessionId: string): readonly SessionCommand[];
  /** Stops a live command of the Session like `command_session` `stop`; resolves once its end was published. */
  stopSessionCommand(sessionId: string, commandId: string): Promise<void>;
}

const where = "workspace";

/**
 * A coding workspace in one capability: the file tools (`list_workspace`, `search_workspace`,
 * `read_workspace_file`, `edit_workspace_file`, `apply_workspace_patch`), `read_workspace_image`,
 * the command tools (`exec_command`, `command_session`), optionally `request_network_access`
 * and `publish_workspace`, a `workspace` instructions section with their usage rules, and
 * AGENTS.md guidance delivered per Run.
 *
 * Each Session opens its root once (a fixed root is checked now, a derived one at each open).
 * With `sandbox: "os"` (the default) the capability declares the agent's one Sandbox: every
 * Session gets its own sandbox worker (a child process at the package's compiled
 * `dist/platform/sandbox-worker/worker.js`) holding `@anthropic-ai/sandbox-runtime` 0.0.83, whose policy
 * allows writes only under the root's real path and the Session's temporary directory, denies
 * writes to `.castellan/`, `.castellan-sessions/`, shell and tool settings and `.git` internals
 * of the root and every repository found under it at open (and the creation of a `.git` where
 * there is none), denies reads of the home directory but `defaultHomeReadPaths` (unless
 * `homeReads: "none"`) and `filesystem.allowRead`, and reaches only `network.allowedDomains`.
 * The file tools refuse the same protected entries, and all of `.git` (`path_protected`), with
 * either sandbox unless a `"none"` workspace sets `files.allowProtectedWrites`. Hosts approved through `request_network_access` last for that
 * Session only. Opening fails without bubblewrap, socat and ripgrep (`sandbox_unavailable`) or
 * without the compiled worker (`sandbox_worker_missing`); it never falls back to unsandboxed
 * execution. `sandbox: "none"` runs commands uncontained; `readOnly` gives only the four
 * reading tools, with no commands and no Sandbox. Closing a Session waits for its commands,
 * resets its sandbox and ends its worker; other Sessions are untouched.
 *
 * @throws WorkspaceOptionsError (`workspace_options_invalid`), WorkspaceRootError (`workspace_root_invalid`), CommandOptionsError, EnvironmentPolicyError.
 */
export function workspace(options: WorkspaceOptions): WorkspaceCapability {
  const resolved = resolveWorkspaceOptions(options);
  const commandsRun = resolved.commands !== undefined;
  const contained = commandsRun && resolved.sandbox === "os";
  // Each live Session's state, by the value it is found through (its sandbox value or root resource).
  const sessions = new WeakMap<object, WorkspaceSession>();
  // By id, for the host methods and the permission hook (a command id is unique, so two
  // Runners' Sessions of one id never answer for each other's handles).
  const byId = new Map<string, Set<WorkspaceSession>>();
  const track = (session: WorkspaceSession) => {
    const set = byId.get(session.sessionId) ?? new Set();
    set.add(session);
    byId.set(session.sessionId, set);
  };
  const untrack = (session: WorkspaceSession) => {
    const set = byId.get(session.sessionId);
    set?.delete(session);
    if (set?.size === 0) byId.delete(session.sessionId);
  };

  const openRoot = (params: JsonObject): WorkspaceRoot => {
    const root = resolved.root;
    const rootOptions = { allowProtectedWrites: resolved.allowProtectedWrites };
    if (typeof root !== "function") return bindWorkspaceRootSync(root.url, undefined, rootOptions);
    let derived: URL | string;
    try {
      derived = root(params);
    } catch (error) {
      throw new WorkspaceRootError("(derived)", `${where}: root(params) failed: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return bindWorkspaceRootSync(derived, undefined, rootOptions);
  };

  const settings = resolved.commands;
  /** The Session's command runtime on `root`: in its own OS sandbox worker, or uncontained. */
  const openCommands = (root: WorkspaceRoot, signal: AbortSignal) =>
    settings
      ? createCommandRuntime({
          root: root.url,
          environment: settings.environment.policy,
          shell: settings.shell,
          limits: {
            executionTimeoutMs: settings.executionTimeoutMs,
            maxOutputBytesPerStream: settings.maxOutputBytesPerStream,
            killGraceMs: settings.killGraceMs,
            maxLiveCommands: settings.maxLiveCommands,
          },
          sandbox: resolved.sandboxOptions ?? "none",
          signal,
        })
      : undefined;

  const newSession = (
    sessionId: string,
    root: WorkspaceRoot,
    runtime: CommandRuntime | undefined,
    sandbox?: WorkspaceSandbox,
  ): WorkspaceSession => {
    const layer: CommandSessionLayer | undefined =
      sandbox && runtime?.spawnLayer
        ? { spawn: runtime.spawnLayer, checkCall: (ctx) => checkSandboxed(ctx, sandbox.value) }
        : undefined;
    const commands = settings && runtime ? new CommandSessionRuntime({ ...settings, root }, layer, runtime) : undefined;
    return Object.freeze({
      sessionId,
      root,
      guidance: new SessionGuidance(root, resolved.guidance.maxBytes),
      commands,
      sandbox,
    });
  };

  /** Ends what a Session owns: its commands (when the open failed before sessionEnd could), its sandbox, its worker. */
  const release = async (session: WorkspaceSession) => {
    untrack(session);
    const failures: unknown[] = [];
    try {
      await session.commands?.closeAll();
    } catch (error) {
      failures.push(error);
    }
    try {
      await session.commands?.commands.close();
    } catch (error) {
      failures.push(error);
    }
    if (failures.length > 0)
      throw failures.length === 1 ? failures[0] : new AggregateError(failures, "Releasing the workspace failed.");
  };

  // Read-only and "none" workspaces find a Session's state through a resource; an OS one through its sandbox.
  const rootKind: BindingKind<JsonObject, WorkspaceSession> = {
    name: "workspace",
    describe: () =>
      typeof resolved.root === "function" ? { root: "derived from params" } : { root: resolved.root.url.href },
    async acquire(_spec, { sessionId, params, signal }) {
      signal.throwIfAborted();
      const root = openRoot(params);
      const session = newSession(sessionId, root, await openCommands(root, signal));
      track(session);
      return { value: session, close: () => release(session) };
    },
  };
  const rootRequest: ResourceRequest<JsonObject, WorkspaceSession> | undefined = contained
    ? undefined
    : resource(rootKind, { fromParams: (params: JsonObject) => params });

  const sandboxDeclaration: SandboxContribution | undefined = contained
    ? {
        specifier: workspaceSandboxSpecifier,
        open: async ({ sessionId, params, signal }): Promise<SandboxLease> => {
          signal.throwIfAborted();
          const root = openRoot(params);
          const runtime = await openCommands(root, signal);
          const opened = runtime?.sandbox;
          if (!runtime || !opened) throw new Error("An OS workspace's command runtime opened without its sandbox.");
          const value = Object.freeze({ kind: workspaceSandboxSpecifier, root: root.url.href });
          const grants = new Set<string>();
          const network: NetworkAccessScope = {
            checkCall: (ctx) => checkSandboxed(ctx, value, "request_network_access"),
            allowedDomains: opened.policy.network.allowedDomains,
            deniedDomains: opened.policy.network.deniedDomains,
            grants,
            apply: (hosts) => opened.allowNetworkHosts(hosts),
          };
          const session = newSession(sessionId, root, runtime, { value, policy: opened.policy, network });
          sessions.set(value, session);
          track(session);
          return { sandbox: value, close: () => release(session) };
        },
      }
    : undefined;

  const sessionOf = (scope: WorkspaceCallScope): WorkspaceSession => {
    if (contained) {
      const found =
        typeof scope.sandbox === "object" && scope.sandbox !== null ? sessions.get(scope.sandbox) : undefined;
      if (found) return found;
    } else {
      const handle = scope.resources.find((candidate) => candidate.request === rootRequest);
      if (handle) return handle.value as WorkspaceSession;
    }
    throw new Error(
      `The workspace of Session "${scope.sessionId}" is not open: a workspace tool was called outside its capability.`,
    );
  };

  const filesContext: WorkspaceToolsContext = {
    bind: (call) => sessionOf(call),
    limits: resolved.limits,
    requireExistingParents: resolved.requireExistingParents,
    searchEngine: resolved.searchEngine,
  };
  const commandsOf = (call: WorkspaceCallScope) => {
    const commands = sessionOf(call).commands;
    if (!commands) throw new Error("This workspace runs no commands.");
    return commands;
  };
  const tools: Tool[] = [
    listWorkspaceTool(filesContext),
    searchWorkspaceTool(filesContext),
    readWorkspaceFileTool(filesContext),
  ];
  if (!resolved.readOnly) tools.push(editWorkspaceFileTool(filesContext), applyWorkspacePatchTool(filesContext));
  tools.push(workspaceImageTool((call) => sessionOf(call).root, resolved.maxImageBytes));
  if (commandsRun) {
    tools.push(createExecCommandTool(commandsOf));
    tools.push(createCommandSessionTool(commandsOf));
  }
  if (resolved.network.allowRequests) {
    tools.push(
      createRequestNetworkAccessTool((call) => {
        const network = sessionOf(call).sandbox?.network;
        if (!network)
          throw new ToolInputError(
            "sandbox_required",
            "request_network_access needs the workspace's OS sandbox. Nothing was granted.",
          );
        return network;
      }),
    );
  }
  if (resolved.publisher) tools.push(createPublishWorkspaceTool(resolved.publisher, sessionOf));

  const sectionText = workspaceSectionText({
    edits: !resolved.readOnly,
    commands: commandsRun,
    sandboxed: contained,
    networkRequests: resolved.network.allowRequests,
    publish: resolved.publisher !== undefined,
  });
  const beforeModel = async (
    request: ModelRequest,
    info: Parameters<typeof deliverGuidance>[2] & WorkspaceCallScope,
  ) => {
    const session = sessionOf(info);
    const guided = await deliverGuidance(
      session.guidance.run(info.sessionId, info.runId),
      request,
      info,
      resolved.guidance.maxBytes,
      resolved.guidance.record,
    );
    const block = session.commands?.observations.render(info.sessionId);
    return block === undefined ? guided : { ...guided, context: appendContext(guided.context, block) };
  };

  const capability = defineCapability({
    name: "workspace",
    tools,
    instructions: [
      { name: "workspace", text: builtinSectionText("workspace", () => sectionText), placement: "system" },
    ],
    ...(rootRequest ? { resources: [rootRequest] } : {}),
    ...(sandboxDeclaration ? { sandbox: sandboxDeclaration } : {}),
    hooks: {
      beforeModel,
      ...(commandsRun
        ? {
            sessionStart: (info) => commandsOf(info).restoreSession(info),
            // No run-end hook exists: a turn of a later Run is when the earlier Run is known to have ended.
            turnStart: (info) => commandsOf(info).handles.runSeen(info.sessionId, info.runId),
            sessionEnd: (info) => commandsOf(info).closeSession(info.sessionId),
          }
        : {}),
    },
  });
  const sessionsOf = (sessionId: string) => [...(byId.get(sessionId) ?? [])];
  return Object.freeze({
    ...capability,
    name: "workspace" as const,
    sessionCommands: (sessionId: string) =>
      Object.freeze(sessionsOf(sessionId).flatMap((session) => session.commands?.sessionCommands(sessionId) ?? [])),
    async stopSessionCommand(sessionId: string, commandId: string) {
      const owner = sessionsOf(sessionId).find((session) => session.commands?.handles.get(sessionId, commandId));
      if (!owner?.commands) throw new CommandNotFoundError(commandId);
      await owner.commands.stopSessionCommand(sessionId, commandId);
    },
  });
}

function checkSandboxed(ctx: { readonly sandbox: unknown }, value: object, tool = "exec_command"): void {
  if (ctx.sandbox !== value) {
    throw new ToolInputError(
      "sandbox_required",
      `${tool} runs only in this Session's workspace sandbox, which the call's Session does not hold. Nothing was run.`,
    );
  }
}
