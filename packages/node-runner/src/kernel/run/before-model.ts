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
  if (hooks.length === 0) return projected;
  // Snapshot the contract first: a hook may mutate the request it was given in place.
  const expected = toolContract(projected);
  let request = projected;
  for (const hook of hooks) {
    const rewritten = await hook(request, info);
    if (rewritten !== undefined && rewritten !== null) request = rewritten;
    if (!isRequestShape(request) || toolContract(request) !== expected) {
      throw new BeforeModelHookError(
        "A beforeModel hook changed the projected tools or returned a malformed request; hooks may rewrite messages but must keep the tool list and contracts.",
      );
    }
  }
  return request;
}

function isRequestShape(request: ModelRequest): boolean {
  return (
    request !== null &&
    typeof request === "object" &&
    Array.isArray(request.messages) &&
    typeof request.system === "string" &&
    Array.isArray(request.tools) &&
    Array.isArray(request.hostedTools)
  );
}

function toolContract(request: ModelRequest): string {
  return JSON.stringify([request.tools, request.hostedTools]);
}
