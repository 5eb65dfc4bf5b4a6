import type { Agent, JsonObject } from "@castellan/harness";
import { deepFreeze, findNonJson, jsonEqual } from "@castellan/harness";
import { ParamsError, SessionMismatchError } from "../errors/errors.js";

/** Checks that params are a JSON object; returns a deeply frozen copy. */
export function admitParams(params: unknown, agent: Agent): JsonObject {
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    throw new ParamsError(`Session params for agent "${agent.id}" must be an object of JSON values.`);
  }
  const nonJson = findNonJson(params, "params");
  if (nonJson) throw new ParamsError(`Session params for agent "${agent.id}" are not JSON at ${nonJson}.`);
  return deepFreeze(structuredClone(params) as JsonObject);
}

/** Every key the agent declares in `params` must be present. */
export function assertDeclaredParams(params: JsonObject, agent: Agent): void {
  const missing = agent.params.filter((key) => !Object.hasOwn(params, key));
  if (missing.length > 0) {
    throw new ParamsError(`Agent "${agent.id}" needs Session params ${missing.map((key) => `"${key}"`).join(", ")}.`);
  }
}

/** Supplied params of a reopened Session must equal the saved ones. */
export function assertSameParams(saved: JsonObject, supplied: JsonObject, sessionId: string): void {
  if (!jsonEqual(saved, supplied)) {
    throw new SessionMismatchError(
      "session_params_mismatch",
      `Session "${sessionId}" was saved with other params: saved ${JSON.stringify(saved)}, given ${JSON.stringify(supplied)}. Reopen it with the same params or none.`,
    );
  }
}
