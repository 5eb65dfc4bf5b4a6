/** An acquired sandbox and how to release it. The sandbox value is for the tools that run commands in it. */
export interface SandboxLease {
  readonly sandbox: unknown;
  close(): Promise<void> | void;
}

import type { JsonObject } from "./json.js";

/** What a contributed sandbox's `open` is given: the Session it is for, so params can shape the policy. */
export interface SandboxOpenOptions {
  readonly signal: AbortSignal;
  readonly sessionId: string;
  /** The Session's parameters, deeply frozen. */
  readonly params: JsonObject;
}

/** A sandbox the declaration opens itself: the Runner calls `open` once per Session and closes the lease on close. */
export interface SandboxContribution {
  readonly specifier: string;
  open(options: SandboxOpenOptions): Promise<SandboxLease>;
}

/** An agent's or capability's sandbox: its own contribution, or the name of one the host resolves. */
export type SandboxDeclaration = SandboxContribution | string;
