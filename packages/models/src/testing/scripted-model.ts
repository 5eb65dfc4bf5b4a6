import {
  CastellanError,
  type ContentBlock,
  type HostedToolStreamEvent,
  type JsonValue,
  type ModelBinding,
  type ModelCallOptions,
  type ModelRequest,
  type ModelStreamEvent,
  malformedToolCall,
  type StopReason,
  type Usage,
} from "@castellan/harness";

/** One scripted model answer. */
export interface ScriptedStep {
  /** Streamed as one text delta (or several, see `chunks`). */
  readonly text?: string;
  /** Split `text` into deltas of this many characters. Default: one delta. */
  readonly chunkSize?: number;
  /** Non-text blocks emitted after the text, in order (images, opaque provider blocks). */
  readonly content?: readonly ContentBlock[];
  readonly thinking?: string;
  /**
   * Provider-hosted tool activity (e.g. a web search the provider ran), streamed as
   * `hosted-tool` events after the thinking and before the text, in order.
   */
  readonly hosted?: readonly Omit<HostedToolStreamEvent, "type">[];
  /**
   * Tool calls, after the text. `malformedInput` makes a call whose arguments text is not JSON
   * (as an adapter reports a call cut off at the output limit); its `input` is then ignored.
   */
  readonly toolCalls?: readonly {
    readonly name: string;
    readonly input?: JsonValue;
    readonly id?: string;
    readonly malformedInput?: string;
  }[];
  readonly usage?: Usage;
  /** How the answer finishes. Default `tool-calls` when there are tool calls, else `end`. */
  readonly stopReason?: StopReason;
  /** Ends the stream with this error instead of finishing. */
  readonly error?: Error;
  /** Before finishing, wait until the call's signal aborts (to test cancellation mid-stream). */
  readonly hang?: boolean;
}

/** A step, or a function of the request returning one (to answer from what the model was sent). */
export type ScriptedStepSource = ScriptedStep | ((request: ModelRequest, call: number) => ScriptedStep);

/** Options of `scriptedModel`. */
export interface ScriptedModelOptions {
  /** Default `scripted/model`. */
  readonly specifier?: string;
  /** The window compaction budgets against, in tokens. Default: none (no automatic compaction). */
  readonly contextWindow?: number;
}

/** A request arrived after the script ran out, or steps were left unused. */
export class ScriptExhaustedError extends CastellanError {
  constructor(message: string) {
    super("script_exhausted", message);
  }
}

/** A deterministic model for tests: answers each request with the next scripted step. */
export interface ScriptedModel extends ModelBinding {
  /** Every request the model was sent, in order (deep copies, as sent). */
  readonly requests: readonly ModelRequest[];
  /** How many steps have not been used. */
  readonly remaining: number;
  /** Throws ScriptExhaustedError if steps are left. */
  assertComplete(): void;
}

/**
 * Creates a scripted model. Each request consumes the next step; a request with no step left
 * ends its stream with a `ScriptExhaustedError`. Tool call ids default to `call_<n>`.
 */
export function scriptedModel(steps: readonly ScriptedStepSource[], options: ScriptedModelOptions = {}): ScriptedModel {
  const queue = [...steps];
  const requests: ModelRequest[] = [];
  let calls = 0;
  let toolCallCount = 0;

  async function* stream(request: ModelRequest, { signal }: ModelCallOptions): AsyncGenerator<ModelStreamEvent> {
    const call = ++calls;
    requests.push(structuredClone(request));
    const source = queue.shift();
    if (source === undefined) {
      yield {
        type: "error",
        error: new ScriptExhaustedError(`Scripted model got request ${call} but its script has ${steps.length} steps.`),
      };
      return;
    }
    let step: ScriptedStep;
    try {
      step = typeof source === "function" ? source(request, call) : source;
    } catch (error) {
      yield { type: "error", error: error instanceof Error ? error : new Error(String(error)) };
      return;
    }
    if (signal.aborted) {
      yield { type: "error", error: abortError(signal) };
      return;
    }
    if (step.thinking) yield { type: "thinking-delta", text: step.thinking };
    for (const activity of step.hosted ?? []) yield { type: "hosted-tool", ...activity };
    if (step.text) {
      const size = step.chunkSize && step.chunkSize > 0 ? step.chunkSize : step.text.length;
      for (let index = 0; index < step.text.length; index += size) {
        yield { type: "text-delta", text: step.text.slice(index, index + size) };
        await Promise.resolve();
        if (signal.aborted) {
          yield { type: "error", error: abortError(signal) };
          return;
        }
      }
    }
    for (const block of step.content ?? []) yield { type: "content", block };
    if (step.hang) {
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      });
      yield { type: "error", error: abortError(signal) };
      return;
    }
    if (step.error) {
      yield { type: "error", error: step.error };
      return;
    }
    for (const toolCall of step.toolCalls ?? []) {
      toolCallCount++;
      const id = toolCall.id ?? `call_${toolCallCount}`;
      yield {
        type: "tool-call",
        toolCall:
          toolCall.malformedInput === undefined
            ? { id, name: toolCall.name, input: toolCall.input ?? {} }
            : malformedToolCall(id, toolCall.name, toolCall.malformedInput),
      };
    }
    yield { type: "usage", usage: step.usage ?? { inputTokens: 0, outputTokens: 0 } };
    yield { type: "finish", stopReason: step.stopReason ?? (step.toolCalls?.length ? "tool-calls" : "end") };
  }

  return {
    specifier: options.specifier ?? "scripted/model",
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    stream,
    requests,
    get remaining() {
      return queue.length;
    },
    assertComplete() {
      if (queue.length > 0) {
        throw new ScriptExhaustedError(`Scripted model has ${queue.length} unused step(s) of ${steps.length}.`);
      }
    },
  };
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error("The model call was aborted.");
  error.name = "AbortError";
  return error;
}
