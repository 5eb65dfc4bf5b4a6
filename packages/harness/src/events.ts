import type { ContentBlock } from "./content.js";
import type { ToolResult } from "./context.js";
import type { JsonValue } from "./json.js";
import type { AssistantMessage, ToolCall } from "./messages.js";
import type { StopReason, Usage } from "./model.js";
import type { DeclarationSource } from "./program.js";

/**
 * Why a Run's final answer ended: `end` (the model finished), `max-tokens` (cut off at the
 * output limit), `refusal` (the provider refused or filtered it), or `other`.
 */
export type RunStopReason = "end" | "max-tokens" | "refusal" | "other";

/** The Run stop reason of a final answer that ended with the model's `stopReason`. */
export function runStopReason(stopReason: StopReason): RunStopReason {
  return stopReason === "end" || stopReason === "max-tokens" || stopReason === "refusal" ? stopReason : "other";
}

/** What a completed Run answered: the last assistant message's content. */
export interface RunResult {
  readonly runId: string;
  /** Ordered text, image and provider blocks. An image reply may have no text at all. */
  readonly content: readonly ContentBlock[];
  /** The text blocks of `content`, joined. */
  readonly text: string;
  /** How many turns (model calls) the Run took. */
  readonly turns: number;
  /** The Run's summed usage: its entries in the Session's usage ledger, cache tokens included. */
  readonly usage: Usage;
  /** Why the final answer ended. */
  readonly stopReason: RunStopReason;
  /** True when the final answer was cut off at the output limit (`stopReason: "max-tokens"`): `content` is incomplete. */
  readonly truncated: boolean;
}

/** Who settled a permission question. */
export type PermissionSource = "hook" | "preset" | "approval";

/** A serializable error, as events and log records carry it. */
export interface ErrorInfo {
  /**
   * A {@link CastellanErrorCode}, or `internal` for an error that is not a Castellan error
   * (a bug, or something a hook threw). A string, since saved logs keep what they were given.
   */
  readonly code: string;
  readonly message: string;
}

interface RunScoped {
  readonly runId: string;
}
interface TurnScoped extends RunScoped {
  readonly turn: number;
}

/**
 * Everything a Run reports, in order, discriminated on `kind`. The names are the project's
 * one event vocabulary (docs/events.md), shared with session log records.
 */
export type RunEvent =
  | (RunScoped & {
      readonly kind: "run-start";
      readonly sessionId: string;
      readonly input: readonly ContentBlock[];
      /** The host's identity for this input (`run(input, { inputId })`), when it gave one. */
      readonly inputId?: string;
    })
  | (TurnScoped & { readonly kind: "turn-start" })
  | (TurnScoped & { readonly kind: "assistant-text-delta"; readonly text: string })
  | (TurnScoped & { readonly kind: "assistant-thinking-delta"; readonly text: string })
  | (TurnScoped & { readonly kind: "assistant-content"; readonly block: ContentBlock })
  | (TurnScoped & {
      readonly kind: "assistant-message";
      readonly message: AssistantMessage;
      readonly stopReason: StopReason;
    })
  | (TurnScoped & { readonly kind: "model-usage"; readonly model: string; readonly usage: Usage })
  | (TurnScoped & { readonly kind: "tool-call"; readonly toolCall: ToolCall })
  | (TurnScoped & {
      /** The provider began a hosted tool call inside this turn's model call. */
      readonly kind: "hosted-tool-start";
      readonly callId: string;
      /** The hosted tool's name in the agent (e.g. `web_search`). */
      readonly toolName: string;
      /** Its hosted kind (e.g. `web-search`). */
      readonly hostedKind: string;
      readonly queries: readonly string[];
    })
  | (TurnScoped & {
      /** The hosted call's result arrived (or the call failed); saved with the turn's answer. */
      readonly kind: "hosted-tool-end";
      readonly callId: string;
      readonly toolName: string;
      readonly hostedKind: string;
      readonly ok: boolean;
      readonly queries: readonly string[];
      readonly sources: readonly { readonly url: string; readonly title?: string }[];
      /** The provider's error code of a failed call. */
      readonly errorCode?: string;
    })
  | (TurnScoped & {
      readonly kind: "tool-permission";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly decision: "allow" | "deny";
      readonly decidedBy: PermissionSource;
      readonly reason?: string;
    })
  | (TurnScoped & {
      readonly kind: "tool-start";
      readonly toolCallId: string;
      readonly toolName: string;
      /** Who contributed the tool: the agent, or a capability (`mcp:<server>`, `skills`, ...). */
      readonly source: DeclarationSource;
      readonly input: JsonValue;
    })
  | (TurnScoped & {
      readonly kind: "tool-end";
      readonly toolCallId: string;
      readonly toolName: string;
      /** Who contributed the tool; absent for a call to a tool the agent does not have. */
      readonly source?: DeclarationSource;
      readonly result: ToolResult;
    })
  | (TurnScoped & { readonly kind: "turn-end" })
  | (TurnScoped & {
      readonly kind: "state-changed";
      readonly source: "host" | "tool";
      readonly changes: Readonly<Record<string, JsonValue>>;
    })
  | (RunScoped & { readonly kind: "run-input"; readonly input: readonly ContentBlock[]; readonly inputId?: string })
  | (RunScoped & { readonly kind: "run-resume" })
  | (RunScoped & {
      readonly kind: "child-event";
      /** The delegating call of this Run. */
      readonly toolCallId: string;
      readonly childSessionId: string;
      /** The child Run's event, as its own Run yielded it. */
      readonly event: RunEvent;
    })
  | (RunScoped & {
      readonly kind: "run-interrupted";
      /** The earlier Run that stopped without settling, now settled as interrupted. */
      readonly interruptedRunId: string;
      /** Its calls that had no receipt: `unknown` ones may have run; `not-run` ones never started. */
      readonly toolCalls: readonly {
        readonly toolCallId: string;
        readonly toolName: string;
        readonly outcome: "unknown" | "not-run";
      }[];
    })
  | (RunScoped & {
      readonly kind: "compaction-start";
      /** Automatic compaction happens when a request would pass the context budget. */
      readonly reason: "budget";
      readonly tokensBefore: number;
    })
  | (RunScoped & {
      readonly kind: "compaction-end";
      readonly keptMessages: number;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
    })
  | (RunScoped & { readonly kind: "hook-failed"; readonly hook: string; readonly error: ErrorInfo })
  | (RunScoped & { readonly kind: "run-end"; readonly status: "completed"; readonly result: RunResult })
  | (RunScoped & { readonly kind: "run-end"; readonly status: "aborted" | "failed"; readonly error: ErrorInfo });

/** The `kind` of every Run event. */
export type RunEventKind = RunEvent["kind"];
