import type { ModelRequest } from "@castellan/harness";
import { CastellanError } from "@castellan/harness";
import type { BeforeModelHook, TurnInfo } from "../plugins/types.js";

/** A beforeModel hook changed what it must keep (the projected tools). */
export class BeforeModelHookError extends CastellanError {
  constructor(message: string) {
    super("hook_invalid", message);
  }
}

/**
 * Runs the beforeModel hooks in order. Each may rewrite the request, but the projected tool
 * list and contracts must come through unchanged: visibility is the Program's decision.
 */
export async function applyBeforeModel(
  hooks: readonly BeforeModelHook[],
  projected: ModelRequest,
  info: TurnInfo,
): Promise<ModelRequest> {
  let request = projected;
  for (const hook of hooks) {
    const rewritten = await hook(request, info);
    if (rewritten === undefined || rewritten === null) continue;
    if (!sameTools(projected, rewritten)) {
      throw new BeforeModelHookError(
        "A beforeModel hook changed the projected tools; hooks may rewrite messages but must keep the tool list and contracts.",
      );
    }
    request = rewritten;
  }
  return request;
}

function sameTools(expected: ModelRequest, actual: ModelRequest): boolean {
  if (!Array.isArray(actual.messages) || typeof actual.system !== "string") return false;
  if (actual.tools.length !== expected.tools.length || actual.hostedTools.length !== expected.hostedTools.length) {
    return false;
  }
  const same = (left: unknown, right: unknown) => JSON.stringify(left) === JSON.stringify(right);
  return (
    expected.tools.every((tool, index) => same(tool, actual.tools[index])) &&
    expected.hostedTools.every((tool, index) => same(tool, actual.hostedTools[index]))
  );
}
