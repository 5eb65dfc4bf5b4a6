import type { RunEvent } from "@castellan/harness";
import type { JobTelemetry } from "./job-telemetry.js";

/**
 * Turns a pass's Run events into telemetry: a tool span per settled call (from its start, or
 * of no duration for a call that never started), and a call metric per model call, published
 * when its stream ended (`completed` with the turn's answer, else `failed` or `aborted` with
 * the Run's end).
 */
export function runRecorder(
  telemetry: JobTelemetry,
  pass: string,
  now: () => number = Date.now,
): (event: RunEvent) => void {
  const toolStarts = new Map<string, number>();
  let call:
    | {
        turn: number;
        startedAt: number;
        model: string;
        usage: Extract<RunEvent, { kind: "model-usage" }>["usage"] | undefined;
      }
    | undefined;
  const publishCall = (outcome: "completed" | "failed" | "aborted") => {
    if (!call) return;
    const usage = call.usage;
    telemetry.publishCall({
      pass,
      model: call.model,
      turn: call.turn,
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      cacheReadTokens: usage?.cacheReadTokens ?? 0,
      cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
      ...(usage?.costUsd !== undefined ? { costUsd: usage.costUsd } : {}),
      durationMs: now() - call.startedAt,
      outcome,
    });
    call = undefined;
  };
  return (event) => {
    switch (event.kind) {
      case "turn-start":
        call = { turn: event.turn, startedAt: now(), model: "unknown", usage: undefined };
        break;
      case "model-usage":
        if (call) {
          call.usage = event.usage;
          call.model = event.model;
        }
        break;
      case "assistant-message":
        publishCall("completed");
        break;
      case "tool-start":
        toolStarts.set(event.toolCallId, now());
        break;
      case "tool-end": {
        const started = toolStarts.get(event.toolCallId);
        toolStarts.delete(event.toolCallId);
        const at = now();
        telemetry.publishSpan({
          kind: "tool",
          name: event.toolName,
          pass,
          startedAt: new Date(started ?? at).toISOString(),
          durationMs: started === undefined ? 0 : at - started,
          ok: !event.result.isError,
        });
        break;
      }
      case "run-end":
        if (event.status !== "completed") publishCall(event.status === "aborted" ? "aborted" : "failed");
        break;
      default:
    }
  };
}
