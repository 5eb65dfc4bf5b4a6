// The messages between a sandbox worker and the host thread that owns it. Each call carries an
// id; the worker answers every call once, in any order.

/** The adapter methods a worker serves. */
export type SandboxWorkerMethod = "initialize" | "allowNetworkHosts" | "prepare" | "finalize" | "reset";

/** Host to worker: one adapter call. */
export interface SandboxWorkerCall {
  readonly id: number;
  readonly method: SandboxWorkerMethod;
  readonly argument: unknown;
}

/** Worker to host: the answer to one call. */
export type SandboxWorkerAnswer =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | {
      readonly id: number;
      readonly ok: false;
      readonly error: { readonly name: string; readonly message: string; readonly code?: string };
    };

/** What a worker is started with (its `workerData`): where the runtime finds its programs. */
export interface SandboxWorkerData {
  readonly bwrapPath?: string;
  readonly socatPath?: string;
  readonly ripgrepPath?: string;
}
