import type { AssistantMessage, ContentBlock, ModelRequest, StopReason, ToolCall, Usage } from "@castellan/harness";
import { isContentBlock } from "@castellan/harness";
import type { Emit } from "../context/session-context.js";
import { ModelCallError, RunAbortedError } from "../errors/errors.js";
import type { BoundModel } from "../models/bound-model.js";
import type { HostedToolActivityRecord } from "../store/records.js";
import { prefetchInputValidation } from "../tools/validate-input.js";
import { HostedActivityTracker } from "./hosted-activity.js";

/** The complete answer of one model call. */
export interface ModelTurn {
  readonly message: AssistantMessage;
  readonly stopReason: StopReason;
  readonly usage: Usage | undefined;
  /** The provider-hosted calls that ran inside the call, saved with the answer. */
  readonly hostedActivity: readonly HostedToolActivityRecord[];
}

/**
 * Streams one model call, reporting deltas as they arrive and assembling the assistant
 * message: consecutive text deltas form one text block, other blocks keep their place. Throws
 * RunAbortedError when the signal aborts, ModelCallError when the stream fails or breaks its
 * contract (no `finish`, a malformed event).
 */
export async function streamModelTurn(
  model: BoundModel,
  request: ModelRequest,
  context: { readonly runId: string; readonly turn: number; readonly signal: AbortSignal; readonly emit: Emit },
): Promise<ModelTurn> {
  const { runId, turn, signal, emit } = context;
  const content: ContentBlock[] = [];
  const toolCalls: ToolCall[] = [];
  let text = "";
  let usage: Usage | undefined;
  let stopReason: StopReason | undefined;
  const hosted = new HostedActivityTracker(request.hostedTools, { runId, turn, specifier: model.specifier });
  const flushText = () => {
    if (text.length > 0) content.push({ type: "text", text });
    text = "";
  };

  // A tool whose schema compiles on first use needs the engine by the time the model asks for
  // it: loading it beside the request hides the load behind the model's latency.
  prefetchInputValidation();
  try {
    await eachUntilAborted(model.stream(request, { signal }), signal, (event) => {
      if (stopReason !== undefined) throw new ModelCallError(`Model "${model.specifier}" sent an event after finish.`);
      switch (event?.type) {
        case "text-delta":
          text += event.text;
          emit({ kind: "assistant-text-delta", runId, turn, text: event.text });
          break;
        case "thinking-delta":
          emit({ kind: "assistant-thinking-delta", runId, turn, text: event.text });
          break;
        case "content":
          if (!isContentBlock(event.block))
            throw new ModelCallError(`Model "${model.specifier}" sent a malformed content block.`);
          flushText();
          content.push(event.block);
          emit({ kind: "assistant-content", runId, turn, block: event.block });
          break;
        case "tool-call": {
          const call = event.toolCall;
          if (typeof call?.id !== "string" || typeof call.name !== "string") {
            throw new ModelCallError(`Model "${model.specifier}" sent a tool call without an id or name.`);
          }
          if (toolCalls.some((existing) => existing.id === call.id)) {
            throw new ModelCallError(`Model "${model.specifier}" sent tool call id "${call.id}" twice.`);
          }
          toolCalls.push(
            typeof call.malformedInput === "string"
              ? { id: call.id, name: call.name, input: {}, malformedInput: call.malformedInput }
              : { id: call.id, name: call.name, input: call.input ?? {} },
          );
          emit({ kind: "tool-call", runId, turn, toolCall: call });
          break;
        }
        case "hosted-tool":
          for (const reported of hosted.observe(event)) emit(reported);
          break;
        case "usage":
          usage = event.usage;
          emit({ kind: "model-usage", runId, turn, model: model.specifier, usage: event.usage });
          break;
        case "finish":
          stopReason = event.stopReason;
          break;
        case "error":
          if (signal.aborted) throw new RunAbortedError(undefined, { cause: event.error });
          throw new ModelCallError(
            `Model "${model.specifier}" failed: ${event.error?.message ?? String(event.error)}`,
            {
              cause: event.error,
            },
          );
        default:
          throw new ModelCallError(
            `Model "${model.specifier}" sent an unknown event ${JSON.stringify((event as { type?: unknown })?.type)}.`,
          );
      }
    });
  } catch (error) {
    if (signal.aborted)
      throw error instanceof RunAbortedError ? error : new RunAbortedError(undefined, { cause: error });
    if (error instanceof ModelCallError) throw error;
    // A stream that throws breaks the adapter contract; report it the same way.
    throw new ModelCallError(`Model "${model.specifier}" failed: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
  if (signal.aborted) throw new RunAbortedError();
  if (stopReason === undefined)
    throw new ModelCallError(`Model "${model.specifier}" ended its stream without finishing.`);
  flushText();
  for (const reported of hosted.finish()) emit(reported);
  return { message: { role: "assistant", content, toolCalls }, stopReason, usage, hostedActivity: hosted.records() };
}

/**
 * Hands each event of a model stream to `onEvent`, but stops waiting as soon as the signal
 * aborts, so an adapter that ignores its signal cannot hold the Run; an unfinished stream (an
 * abort, or `onEvent` throwing) is then told to return. The iterator is driven by hand rather
 * than through an async generator: one promise per event instead of three.
 */
async function eachUntilAborted<Event>(
  stream: AsyncIterable<Event>,
  signal: AbortSignal,
  onEvent: (event: Event) => void,
): Promise<void> {
  const iterator = stream[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  let finished = false;
  try {
    while (true) {
      if (signal.aborted) throw new RunAbortedError();
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === "aborted") throw new RunAbortedError();
      if (next.done) {
        finished = true;
        return;
      }
      onEvent(next.value);
    }
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
    // Tell an unfinished stream to stop; an adapter that never settles is not awaited.
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
