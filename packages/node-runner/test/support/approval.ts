import type { NodeRunnerPlugin, ToolApprovalAdapter } from "../../src/index.js";

/** An approval plugin ("test.approval") whose adapter answers every request with `request`. */
export function approvalPlugin(request: ToolApprovalAdapter["request"]): NodeRunnerPlugin {
  return { name: "test.approval", apply: (host) => host.registerApproval({ request }) };
}

/** An approval plugin that records the id of every call it is asked about and answers `decision` with `reason`. */
export function recordingApproval(
  asked: string[],
  decision: "allow" | "deny" = "allow",
  reason = `${decision} by the test`,
): NodeRunnerPlugin {
  return approvalPlugin(async (request) => {
    asked.push(request.toolCallId);
    return { decision, reason };
  });
}
