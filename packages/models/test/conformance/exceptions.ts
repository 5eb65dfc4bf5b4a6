// The documented exceptions of the conformance suite: where an adapter's provider makes an
// expectation differ, the scenario still runs, and checks this entry's expectation instead.
// Each entry names its adapter, its scenario and the reason; an entry that no longer differs
// should be removed (the suite's own test checks each entry names a driver and a scenario).
import type { ModelErrorCode, Usage } from "@castellan/harness";
import type { ScenarioName } from "./scenarios.ts";

/** What a scenario expects, for the scenarios an exception can change. */
export interface Expectations {
  "image in a tool result": {
    /** Whether the image reaches the provider as an image; otherwise its data is inside the result's text. */
    readonly asImage: boolean;
  };
  "continuation across a restart": {
    /** Whether the first answer's provider block goes back in the second process's request. */
    readonly providerBlockSentBack: boolean;
  };
  "HTTP 404 unknown model": {
    /** The status on the error (undefined when no HTTP answer said it). */
    readonly status: number | undefined;
    /** How many model calls reached the server. */
    readonly inferenceRequests: number;
  };
  "too long": { readonly code: ModelErrorCode };
  "usage and cost": { readonly usage: Usage };
}

/** One documented exception. */
export interface ConformanceException<Scenario extends keyof Expectations = keyof Expectations> {
  readonly driver: string;
  readonly scenario: Scenario;
  readonly reason: string;
  readonly expected: Expectations[Scenario];
}

/** The usage scenario's numbers, here so the exceptions below can say what differs. */
export const USAGE = {
  pricing: { inputPerMillion: 2, outputPerMillion: 8, cacheReadPerMillion: 0.5, cacheWritePerMillion: 2.5 },
  wire: { input: 1_000, output: 200, cacheRead: 400, cacheWrite: 100 },
} as const;

/** The same call where the provider reports no cache writes: the 100 written tokens are input like any other. */
const usageWithoutCacheWrites: Usage = {
  inputTokens: 1_000,
  outputTokens: 200,
  cacheReadTokens: 400,
  costUsd: (600 * 2 + 400 * 0.5 + 200 * 8) / 1e6,
};

export const exceptions: readonly ConformanceException[] = [
  {
    driver: "openrouter",
    scenario: "HTTP 404 unknown model",
    reason:
      "The binding reads OpenRouter's catalog before its first model call, so an id the catalog lacks fails " +
      "there with model_unknown (no status) and no model call is sent.",
    expected: { status: undefined, inferenceRequests: 0 },
  } satisfies ConformanceException<"HTTP 404 unknown model">,
  {
    driver: "openrouter",
    scenario: "too long",
    reason:
      "OpenRouter answers an over-long prompt with a plain 400 (error.code 400) whose only detail is message " +
      "text, and errors are classified from status and type, never from text: it is model_bad_request.",
    expected: { code: "model_bad_request" },
  } satisfies ConformanceException<"too long">,
  {
    driver: "ai-sdk-chat",
    scenario: "image in a tool result",
    reason:
      "@ai-sdk/openai's Chat Completions model sends a tool result's content as JSON text in the tool " +
      "message, so the image's base64 data arrives inside that text rather than as an image part.",
    expected: { asImage: false },
  } satisfies ConformanceException<"image in a tool result">,
  {
    driver: "ai-sdk-chat",
    scenario: "continuation across a restart",
    reason:
      "@ai-sdk/openai's Chat Completions model reads no reasoning_details, so the answer has no provider " +
      "block to keep: the second process continues the conversation from its text alone.",
    expected: { providerBlockSentBack: false },
  } satisfies ConformanceException<"continuation across a restart">,
  {
    driver: "codex",
    scenario: "usage and cost",
    reason: "The Responses API reports cached reads (input_tokens_details.cached_tokens) but no cache writes.",
    expected: { usage: usageWithoutCacheWrites },
  } satisfies ConformanceException<"usage and cost">,
  {
    driver: "ai-sdk",
    scenario: "usage and cost",
    reason:
      "@ai-sdk/openai's Responses model reads cached reads from the wire but no cache writes (OpenAI reports none).",
    expected: { usage: usageWithoutCacheWrites },
  } satisfies ConformanceException<"usage and cost">,
];

/** The expectation of `scenario` for `driver`: its documented exception's, else `standard`. */
export function expectation<Scenario extends keyof Expectations>(
  driver: string,
  scenario: Scenario,
  standard: Expectations[Scenario],
): Expectations[Scenario] {
  const entry = exceptions.find((exception) => exception.driver === driver && exception.scenario === scenario);
  return entry ? (entry.expected as Expectations[Scenario]) : standard;
}

/** The scenarios an exception can change; a name outside the scenario list does not compile. */
export type ExceptionScenario = ScenarioOf<keyof Expectations>;
type ScenarioOf<Name extends ScenarioName> = Name;
