import type { Message, ModelRequest, Projection, Usage } from "@castellan/harness";
import { CastellanError } from "@castellan/harness";
import type { SessionContext } from "../context/session-context.js";
import { estimateMessageTokens, estimateTextTokens } from "../history/token-estimate.js";
import type { RunJournal } from "../journal/run-journal.js";
import type { BoundModel } from "../models/bound-model.js";
import { streamModelTurn } from "./model-turn.js";

/** The summary request failed; nothing was saved and the conversation is as it was. */
export class CompactionError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("compaction_failed", message, options);
  }
}

/** What a compaction did. */
export interface CompactionOutcome {
  readonly summary: string;
  /** Messages kept verbatim after the summary. */
  readonly keptMessages: number;
  /** Messages replaced by the summary. */
  readonly compactedMessages: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly model: string;
  readonly usage?: Usage;
}

const defaultInstructions = [
  "You are compacting a conversation between a user and an assistant that uses tools, so it can continue in less space.",
  "Write a summary that lets the assistant carry on without the original messages: the user's goals and requests,",
  "decisions made, facts learned (names, identifiers, paths, numbers), what each tool call did and returned when it",
  "matters, work finished, and work still open. Keep exact values. Do not invent anything. Write only the summary.",
].join(" ");

const summaryPrefix = "Summary of the earlier conversation (compacted):\n\n";

// A tool's contract does not change while it is bound; its estimate is taken once.
const contractTokens = new WeakMap<object, number>();

function toolContractTokens(tool: { readonly description: string; readonly inputSchema: unknown }): number {
  let tokens = contractTokens.get(tool);
  if (tokens === undefined) {
    tokens = estimateTextTokens(tool.description) + estimateTextTokens(JSON.stringify(tool.inputSchema) ?? "");
    contractTokens.set(tool, tokens);
  }
  return tokens;
}

/** The request's estimated size: the conversation, the instructions and the tool contracts. */
export function estimateRequestTokens(session: SessionContext, projection: Projection): number {
  let tokens =
    session.history.estimatedTokens + estimateTextTokens(projection.system) + estimateTextTokens(projection.context);
  for (const tool of projection.tools) {
    const bound = session.tools.get(tool.name);
    if (bound?.kind === "local") tokens += toolContractTokens(bound.tool);
  }
  return tokens;
}

/**
 * Whether a model call's request would pass the budget's threshold (false without a known
 * context window): checked before every call, so it is synchronous.
 */
export function needsCompaction(session: SessionContext, projection: Projection, model: BoundModel): boolean {
  const budget = session.contextBudget;
  const window = budget.contextWindow ?? model.contextWindow;
  if (!window) return false;
  return estimateRequestTokens(session, projection) > (window - budget.reserveOutputTokens) * budget.threshold;
}

/**
 * Compacts before a model call when its request would pass the budget's threshold. Without
 * a known context window (from the binding or the budget) nothing is compacted.
 */
export async function compactIfNeeded(
  session: SessionContext,
  journal: RunJournal,
  context: {
    readonly runId: string;
    readonly projection: Projection;
    readonly model: BoundModel;
    readonly signal: AbortSignal;
  },
): Promise<CompactionOutcome | undefined> {
  if (!needsCompaction(session, context.projection, context.model)) return undefined;
  const budget = session.contextBudget;
  const available = (budget.contextWindow ?? (context.model.contextWindow as number)) - budget.reserveOutputTokens;
  return await compactConversation(session, journal, {
    runId: context.runId,
    reason: "budget",
    keepTokens: Math.floor(available * budget.keepRecent),
    sessionModel: context.model,
    signal: context.signal,
  });
}

/**
 * Replaces the older part of the conversation, in what the model is sent, with a summary the
 * model writes. The most recent messages (up to `keepTokens`, at least the last exchange)
 * stay verbatim; a tool call always stays with its results. The log keeps every original
 * record, so receipts, state and the transcript are untouched. The summary request gets the
 * conversation only: no context-placed sections, which are live observations.
 */
export async function compactConversation(
  session: SessionContext,
  journal: RunJournal,
  options: {
    readonly runId?: string;
    readonly reason: "budget" | "manual";
    readonly keepTokens: number;
    readonly sessionModel: BoundModel;
    readonly signal: AbortSignal;
  },
): Promise<CompactionOutcome | undefined> {
  const messages = session.history.messages;
  const kept = keptMessageCount(messages, options.keepTokens);
  const compacted = messages.length - kept;
  // After a compaction the first message is its summary: summarizing it alone again gains nothing.
  if (compacted <= (session.history.compactions > 0 ? 1 : 0)) return undefined;
  const tokensBefore = session.history.estimatedTokens;
  const runId = options.runId ?? "";
  if (options.runId && options.reason === "budget") {
    journal.emit({ kind: "compaction-start", runId, reason: "budget", tokensBefore });
  }

  // A summary is written by the configured compaction model, else by the model of the Run.
  const model = session.compactionModel
    ? await session.compactionModel.resolve({ sessionId: session.sessionId, runId, signal: options.signal })
    : options.sessionModel;
  const request: ModelRequest = {
    system: session.contextBudget.instructions ?? defaultInstructions,
    context: "",
    messages: [
      ...messages.slice(0, compacted),
      { role: "user", content: [{ type: "text", text: "Summarize the conversation so far, as instructed." }] },
    ],
    tools: [],
    hostedTools: [],
  };
  let summary: string;
  let usage: Usage | undefined;
  try {
    // The summary's own deltas are not the Run's answer, so they are not reported.
    const answer = await streamModelTurn(model, request, {
      runId,
      turn: 0,
      signal: options.signal,
      emit: () => undefined,
    });
    summary = answer.message.content
      .map((block) => (block.type === "text" ? block.text : ""))
      .join("")
      .trim();
    usage = answer.usage;
  } catch (error) {
    if (options.signal.aborted) throw error;
    throw new CompactionError(`Compacting the conversation failed: ${(error as Error).message}`, { cause: error });
  }
  if (summary.length === 0)
    throw new CompactionError("Compacting the conversation failed: the model wrote an empty summary.");

  await journal.commit([
    {
      kind: "compaction",
      ...(options.runId ? { runId: options.runId } : {}),
      summary: `${summaryPrefix}${summary}`,
      keptMessages: kept,
      tokensBefore,
      model: model.specifier,
      ...(usage ? { usage } : {}),
    },
  ]);
  const tokensAfter = session.history.estimatedTokens;
  if (options.runId) journal.emit({ kind: "compaction-end", runId, keptMessages: kept, tokensBefore, tokensAfter });
  return {
    summary: `${summaryPrefix}${summary}`,
    keptMessages: kept,
    compactedMessages: compacted,
    tokensBefore,
    tokensAfter,
    model: model.specifier,
    ...(usage ? { usage } : {}),
  };
}

/**
 * How many trailing messages to keep: whole exchanges (a user message, or an assistant
 * message with its tool results) from the end, while they fit in `keepTokens`, and always the
 * last one.
 */
export function keptMessageCount(messages: readonly Message[], keepTokens: number): number {
  let start = messages.length;
  let tokens = 0;
  while (start > 0) {
    let unitStart = start - 1;
    while (unitStart > 0 && messages[unitStart]?.role === "tool") unitStart--;
    let unitTokens = 0;
    for (let index = unitStart; index < start; index++) unitTokens += estimateMessageTokens(messages[index] as Message);
    if (start < messages.length && tokens + unitTokens > keepTokens) break;
    tokens += unitTokens;
    start = unitStart;
  }
  return messages.length - start;
}
