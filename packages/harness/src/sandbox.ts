/** An acquired sandbox and how to release it. The sandbox value is for the tools that run commands in it. */
export interface SandboxLease {
  readonly sandbox: unknown;
  close(): Promise<void> | void;
}

/** A sandbox the declaration opens itself: the Runner calls `open` once per Session and closes the lease on close. */
export interface SandboxAcquisition {
  readonly specifier: string;
  open(options: { readonly signal: AbortSignal }): Promise<SandboxLease>;
}

/** An agent's or capability's sandbox: its own acquisition, or the name of one the host resolves. */
export type SandboxDeclaration = SandboxAcquisition | string;
