import type { ModelRequest } from "@castellan/harness";

/** A request with empty defaults for what the test does not set. */
export function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { system: "", context: "", messages: [], tools: [], hostedTools: [], ...overrides };
}

/** A request whose only message is the user's `text`, with empty defaults for the rest. */
export function userRequest(text: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return modelRequest({ messages: [{ role: "user", content: [{ type: "text", text }] }], ...overrides });
}
