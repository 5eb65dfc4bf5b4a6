// The error tables: one precedence for every adapter, and one meaning per provider error type.
import { describe, expect, it } from "vitest";
import { aiSdkErrors } from "../../src/ai-sdk/error-table.js";
import { anthropicErrors } from "../../src/anthropic/error-table.js";
import { responsesErrors } from "../../src/codex/error-table.js";
import { chatCompletionsErrors } from "../../src/openai-compatible/error-table.js";
import { type ErrorTable, errorCode, errorTable, isFinal } from "../../src/shared/error-table.js";

const tables: Record<string, ErrorTable> = {
  anthropic: anthropicErrors,
  codex: responsesErrors,
  "openai-compatible": chatCompletionsErrors,
  "ai-sdk": aiSdkErrors,
};

describe("errorCode", () => {
  const table = errorTable({
    statuses: { 401: "model_auth", 529: "model_overloaded" },
    types: { too_long: "model_context_overflow", busy: "model_overloaded", gone: "model_unknown" },
    decisive: ["too_long"],
    final: ["broke"],
  });

  it("reads a decisive type, then the status, other 5xx, the type, other 4xx, in that order", () => {
    expect(errorCode(table, { status: 500, types: ["too_long"] })).toBe("model_context_overflow");
    expect(errorCode(table, { status: 401, types: ["gone"] })).toBe("model_auth");
    expect(errorCode(table, { status: 502, types: ["gone"] })).toBe("model_server_error");
    expect(errorCode(table, { status: 400, types: [undefined, 42, "gone"] })).toBe("model_unknown");
    expect(errorCode(table, { status: 422, types: ["new_type"] })).toBe("model_bad_request");
    expect(errorCode(table, { types: ["busy"] })).toBe("model_overloaded");
    expect(errorCode(table, { types: ["new_type"] })).toBeUndefined();
    expect(errorCode(table, { types: ["constructor", "toString"] })).toBeUndefined();
  });

  it("says which types are final", () => {
    expect(isFinal(table, { types: [undefined, "broke"] })).toBe(true);
    expect(isFinal(table, { types: ["busy"] })).toBe(false);
  });
});

describe("the provider tables", () => {
  // Regression: not_found_error meant model_unknown in the Anthropic adapter and
  // model_bad_request through the AI SDK.
  it("give each provider error type one meaning wherever it appears", () => {
    const meanings = new Map<string, Set<string>>();
    for (const table of Object.values(tables)) {
      for (const [type, code] of Object.entries(table.types)) {
        meanings.set(type, (meanings.get(type) ?? new Set()).add(code));
      }
    }
    const conflicting = [...meanings].filter(([, codes]) => codes.size > 1).map(([type]) => type);
    expect(conflicting).toEqual([]);
    expect(errorCode(aiSdkErrors, { status: 404, types: ["not_found_error"] })).toBe("model_unknown");
    expect(errorCode(anthropicErrors, { status: 404, types: ["not_found_error"] })).toBe("model_unknown");
  });

  it.each(Object.entries(tables))("%s: map the documented statuses the same way", (_name, table) => {
    expect([401, 403, 429, 500, 503, 529].map((status) => errorCode(table, { status, types: [] }))).toEqual([
      "model_auth",
      "model_auth",
      "model_rate_limited",
      "model_server_error",
      "model_overloaded",
      "model_overloaded",
    ]);
  });
});
