import type { NodeRunnerPlugin, ToolApprovalAnswer, ToolApprovalRequest } from "@castellan/node-runner";

/** The reason a headless `ask` is denied with when nobody answered in time. */
export const noApproverReason = "no approver: answer from castellan ui with --approval-wait, or choose --permissions";

/**
 * Somewhere else a request can be answered (the live channel, item 12): `ask` resolves with the
 * first answer given there, and stops waiting when `signal` aborts.
 */
export interface ApprovalRelay {
  ask(request: ToolApprovalRequest, signal: AbortSignal): Promise<ToolApprovalAnswer>;
}

/** Options of {@link headlessApproval}. */
export interface HeadlessApprovalOptions {
  /** How long an `ask` waits for an answer through `relay`, in ms. Default 0: denied at once. */
  readonly waitMs: number;
  /** Where a person can answer meanwhile. Without one, an `ask` waits `waitMs` and is denied. */
  readonly relay?: ApprovalRelay;
}

/**
 * The approval adapter of `castellan -p`: there is no terminal to ask, so a request is offered
 * to the relay for up to `waitMs` and denied with {@link noApproverReason} when unanswered.
 */
export function headlessApproval(options: HeadlessApprovalOptions): NodeRunnerPlugin {
  return {
    name: "castellan.headless-approval",
    apply: (host) =>
      host.registerApproval({
        request: async (request, { signal }) => {
          const denied: ToolApprovalAnswer = { decision: "deny", reason: noApproverReason };
          if (options.waitMs <= 0) return denied;
          const giveUp = AbortSignal.any([signal, AbortSignal.timeout(options.waitMs)]);
          const waited = new Promise<ToolApprovalAnswer>((resolve) => {
            if (giveUp.aborted) resolve(denied);
            else giveUp.addEventListener("abort", () => resolve(denied), { once: true });
          });
          if (!options.relay) return waited;
          return Promise.race([options.relay.ask(request, giveUp).catch(() => waited), waited]);
        },
      }),
  };
}
