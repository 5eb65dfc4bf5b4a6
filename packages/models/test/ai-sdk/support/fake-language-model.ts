// A hand-written LanguageModelV4: each doStream call answers with the next scripted step, a
// deterministic stream of parts, and records the call options it was given.
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";

export { collect } from "../../support/stream.js";

/** One scripted answer. */
export interface FakeStep {
  /** The parts streamed, in order. */
  readonly parts?: readonly LanguageModelV4StreamPart[];
  /** doStream rejects with this instead of answering. */
  readonly reject?: unknown;
  /** After the parts, the stream errors with this (a failed read). */
  readonly failRead?: unknown;
  /** After the parts, the stream stays open (until aborted, unless `ignoreAbort`). */
  readonly hang?: boolean;
  /** The stream does not react to the abort signal at all. */
  readonly ignoreAbort?: boolean;
}

export interface FakeLanguageModel extends LanguageModelV4 {
  readonly calls: LanguageModelV4CallOptions[];
  /** How many streams were cancelled by their reader. */
  readonly cancelled: number;
}

export function fakeLanguageModel(
  steps: readonly FakeStep[],
  identity: { provider?: string; modelId?: string } = {},
): FakeLanguageModel {
  const queue = [...steps];
  const calls: LanguageModelV4CallOptions[] = [];
  let cancelled = 0;
  return {
    specificationVersion: "v4",
    provider: identity.provider ?? "fake.chat",
    modelId: identity.modelId ?? "fake-1",
    supportedUrls: {},
    calls,
    get cancelled() {
      return cancelled;
    },
    doGenerate() {
      throw new Error("doGenerate is not used by the adapter");
    },
    async doStream(options) {
      calls.push(options);
      const step = queue.shift();
      if (step === undefined) throw new Error(`fake model: no step for call ${calls.length}`);
      if (step.reject !== undefined) throw step.reject;
      const parts = [...(step.parts ?? [])];
      // Pulled one part at a time, so a failure after the parts comes after they were read.
      const stream = new ReadableStream<LanguageModelV4StreamPart>(
        {
          start(controller) {
            if (step.hang && !step.ignoreAbort) {
              options.abortSignal?.addEventListener("abort", () => controller.error(options.abortSignal?.reason), {
                once: true,
              });
            }
          },
          pull(controller) {
            const part = parts.shift();
            if (part !== undefined) controller.enqueue(part);
            else if (step.failRead !== undefined) controller.error(step.failRead);
            else if (!step.hang) controller.close();
            // A hanging stream enqueues nothing more: the read stays pending.
          },
          cancel() {
            cancelled++;
          },
        },
        { highWaterMark: 0 },
      );
      return { stream };
    },
  };
}

/** A usage in the spec's shape. */
export function usage(
  input: number,
  output: number,
  cache: { read?: number; write?: number } = {},
): LanguageModelV4Usage {
  return {
    inputTokens: {
      total: input,
      noCache: input - (cache.read ?? 0) - (cache.write ?? 0),
      cacheRead: cache.read,
      cacheWrite: cache.write,
    },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** A finish part. */
export function finish(
  unified: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other" = "stop",
  used: LanguageModelV4Usage = usage(10, 5),
): LanguageModelV4StreamPart {
  return { type: "finish", finishReason: { unified, raw: unified }, usage: used };
}

/** A text part's start, deltas and end. */
export function textParts(id: string, ...deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: "text-start", id },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id, delta })),
    { type: "text-end", id },
  ];
}

/** An APICallError-shaped error (the adapter reads its fields, never its class). */
export function apiCallError(fields: {
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
  data?: unknown;
  message?: string;
}): Error {
  const error = new Error(fields.message ?? "API call failed") as Error & Record<string, unknown>;
  error.name = "AI_APICallError";
  Object.assign(error, { url: "https://provider.invalid/v1", requestBodyValues: {}, ...fields });
  if (fields.isRetryable === undefined) {
    const status = fields.statusCode;
    error.isRetryable = status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);
  }
  return error;
}
