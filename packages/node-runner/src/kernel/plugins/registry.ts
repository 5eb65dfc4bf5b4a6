import type { HostedToolSpec, Tool } from "@castellan/harness";
import type { BoundModel } from "../models/bound-model.js";
import type { ToolApprovalAdapter, ToolPermissionHook } from "../permissions/types.js";
import type { SessionStore } from "../store/types.js";
import type { OpenSessions, SessionHandle } from "./open-sessions.js";
import type {
  BeforeModelHook,
  ModelResolver,
  SandboxResolver,
  SessionEndHook,
  SessionStartHook,
  SkillResolver,
  StateChangedHook,
  TurnStartHook,
} from "./types.js";

/** Everything the plugins registered, frozen when the Runner has been created. */
export interface Registry {
  readonly models: ReadonlyMap<string, BoundModel>;
  readonly modelResolver: ModelResolver | undefined;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly hostedTools: ReadonlyMap<string, HostedToolSpec>;
  readonly store: SessionStore | undefined;
  readonly approval: ToolApprovalAdapter | undefined;
  readonly sandboxResolver: SandboxResolver | undefined;
  readonly skillResolver: SkillResolver | undefined;
  /** The Runner's open Sessions; each NodeSession adds itself when made and removes itself once closed. */
  readonly sessions: OpenSessions<SessionHandle>;
  readonly hooks: {
    readonly toolPermission: readonly ToolPermissionHook[];
    readonly beforeModel: readonly BeforeModelHook[];
    readonly turnStart: readonly TurnStartHook[];
    readonly stateChanged: readonly StateChangedHook[];
    readonly sessionStart: readonly SessionStartHook[];
    readonly sessionEnd: readonly SessionEndHook[];
  };
}
