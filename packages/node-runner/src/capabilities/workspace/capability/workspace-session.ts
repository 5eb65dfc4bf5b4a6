import type { BindingHandle } from "@castellan/harness";
import type { WorkspaceRoot } from "../../../platform/paths/root.js";
import type { ResolvedSandboxPolicy } from "../../../platform/sandbox/config.js";
import type { NetworkAccessScope } from "../../../platform/sandbox/network-access.js";
import type { CommandSessionRuntime } from "../../commands/index.js";
import type { SessionGuidance } from "../instructions/instructions-plugin.js";

/** The OS sandbox of one workspace Session (its command runtime owns the worker): its value, policy and network grants. */
export interface WorkspaceSandbox {
  /** The Session's `ctx.sandbox` value. */
  readonly value: object;
  readonly policy: ResolvedSandboxPolicy;
  /** `request_network_access` for this Session only. */
  readonly network: NetworkAccessScope;
}

/** What one Session of a `workspace()` capability owns: its root, guidance, commands and sandbox. */
export interface WorkspaceSession {
  readonly sessionId: string;
  readonly root: WorkspaceRoot;
  readonly guidance: SessionGuidance;
  /** Undefined for a read-only workspace. */
  readonly commands: CommandSessionRuntime | undefined;
  /** Undefined unless the workspace runs commands in the OS sandbox. */
  readonly sandbox: WorkspaceSandbox | undefined;
}

/** What a tool call or hook shows of its Session: enough to find its workspace Session. */
export interface WorkspaceCallScope {
  readonly sessionId: string;
  readonly sandbox: unknown;
  readonly resources: readonly BindingHandle[];
}

/** Finds the workspace Session of a call or hook. */
export type WorkspaceScopeOf = (scope: WorkspaceCallScope) => WorkspaceSession;
