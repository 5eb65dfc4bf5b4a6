import type { PermissionSource } from "@castellan/harness";
import { errorMessage } from "@castellan/harness";
import type {
  PermissionPreset,
  ToolApprovalAdapter,
  ToolApprovalRequest,
  ToolPermissionContribution,
  ToolPermissionDecision,
  ToolPermissionHook,
  ToolPermissionRequest,
} from "./types.js";

/** The settled answer to a permission question. */
export interface PermissionOutcome {
  readonly decision: "allow" | "deny";
  readonly decidedBy: PermissionSource;
  readonly reason?: string;
}

/** What deciding a call needs. */
export interface PermissionPolicy {
  readonly hooks: readonly ToolPermissionHook[];
  /** Undefined: no preset; what every hook leaves open is asked about. */
  readonly preset: PermissionPreset | undefined;
  readonly approval: ToolApprovalAdapter | undefined;
}

const presets: ReadonlySet<string> = new Set(["read-only", "ask-on-write", "full-access"]);

export function isPermissionPreset(value: unknown): value is PermissionPreset {
  return typeof value === "string" && presets.has(value);
}

/** The preset's answer: declared read-only tools are always allowed; the rest by preset. */
export function presetDecision(preset: PermissionPreset, readOnly: boolean): "allow" | "ask" | "deny" {
  if (readOnly) return "allow";
  if (preset === "read-only") return "deny";
  return preset === "full-access" ? "allow" : "ask";
}

/**
 * Decides a tool call: every hook is asked; deny beats ask beats allow; when every hook
 * deferred, the preset answers (without a preset the call is asked about); an `ask` goes to
 * the approval adapter, and without one it is a deny. A hook that throws denies the call (the
 * failure is its reason).
 */
export async function decidePermission(
  request: ToolPermissionRequest,
  policy: PermissionPolicy,
  context: {
    readonly description: string;
    /** How the call is shown for approval (`describeToolCall`). */
    readonly shown: { readonly title: string; readonly summary: string };
    readonly signal: AbortSignal;
    /** Makes an approval request durable before the adapter is asked, and its answer after. */
    readonly approvalLog?: ApprovalLog;
    /** Awaited just before the adapter is asked (the Run's consumer catching up). Default none. */
    readonly beforeAsking?: () => Promise<void>;
  },
): Promise<PermissionOutcome> {
  let strongest: { decision: Exclude<ToolPermissionDecision, "defer">; reason?: string } | undefined;
  const rank = { allow: 1, ask: 2, deny: 3 } as const;
  for (const hook of policy.hooks) {
    let contribution: ToolPermissionContribution;
    try {
      contribution = await hook(request, { signal: context.signal });
    } catch (error) {
      return {
        decision: "deny",
        decidedBy: "hook",
        reason: `A permission hook failed: ${errorMessage(error)}`,
      };
    }
    const answer = normalize(contribution);
    if (!answer || answer.decision === "defer") continue;
    if (!strongest || rank[answer.decision] > rank[strongest.decision]) {
      strongest = { decision: answer.decision, ...(answer.reason ? { reason: answer.reason } : {}) };
    } else if (answer.decision === strongest.decision && !strongest.reason && answer.reason) {
      // Among equal decisions the first reason given explains the outcome.
      strongest.reason = answer.reason;
    }
  }
  // Without a preset nothing answers for the hooks: what they leave open goes to approval.
  const decidedBy: PermissionSource = strongest ? "hook" : policy.preset ? "preset" : "approval";
  const decision = strongest?.decision ?? (policy.preset ? presetDecision(policy.preset, request.readOnly) : "ask");
  const reason = strongest?.reason;
  if (decision === "allow") return { decision, decidedBy, ...(reason ? { reason } : {}) };
  if (decision === "deny") {
    return {
      decision,
      decidedBy,
      reason:
        reason ??
        (decidedBy === "preset"
          ? `The "${policy.preset}" permission preset denies tools with effects.`
          : "Denied by a host policy."),
    };
  }
  if (!policy.approval) {
    return { decision: "deny", decidedBy, reason: "The call needs approval and no approval adapter is configured." };
  }
  return await askApproval(
    policy.approval,
    { ...request, ...context.shown, description: context.description, ...(reason ? { reason } : {}) },
    context,
  );
}

/** Where approval requests and answers are saved, so a request outlives its process. */
export interface ApprovalLog {
  requested(request: ToolApprovalRequest): Promise<void>;
  answered(outcome: PermissionOutcome): Promise<void>;
}

/** Asks the approval adapter, saving the request before and the answer after. */
export async function askApproval(
  approval: ToolApprovalAdapter,
  request: ToolApprovalRequest,
  context: {
    readonly signal: AbortSignal;
    readonly approvalLog?: ApprovalLog;
    readonly alreadyRequested?: boolean;
    /** Awaited just before the adapter is asked (the Run's consumer catching up). Default none. */
    readonly beforeAsking?: () => Promise<void>;
  },
): Promise<PermissionOutcome> {
  if (!context.alreadyRequested) await context.approvalLog?.requested(request);
  await context.beforeAsking?.();
  const answer = await approval.request(request, { signal: context.signal });
  const outcome: PermissionOutcome =
    answer?.decision === "allow"
      ? { decision: "allow", decidedBy: "approval", ...(answer.reason ? { reason: answer.reason } : {}) }
      : { decision: "deny", decidedBy: "approval", reason: answer?.reason ?? "Denied at approval." };
  await context.approvalLog?.answered(outcome);
  return outcome;
}

function normalize(
  contribution: ToolPermissionContribution,
): { decision: ToolPermissionDecision; reason?: string } | undefined {
  if (contribution === undefined || contribution === null) return undefined;
  if (typeof contribution === "string" && isDecision(contribution)) return { decision: contribution };
  if (typeof contribution === "object" && isDecision(contribution.decision)) {
    return { decision: contribution.decision, ...(contribution.reason ? { reason: contribution.reason } : {}) };
  }
  // An answer outside the vocabulary is a policy bug: fail closed.
  return { decision: "deny", reason: `A permission hook gave an invalid answer: ${JSON.stringify(contribution)}.` };
}

function isDecision(value: unknown): value is ToolPermissionDecision {
  return value === "allow" || value === "ask" || value === "deny" || value === "defer";
}
