import type { HostedToolSpec, ModelRequest, Projection, ToolSpec } from "@castellan/harness";
import { isModelProviderError } from "@castellan/harness";
import type { Emit, SessionContext } from "../context/session-context.js";
import { ModelCallError } from "../errors/errors.js";
import type { RunJournal } from "../journal/run-journal.js";
import type { BoundModel } from "../models/bound-model.js";
import type { TurnInfo } from "../plugins/types.js";
import { abortable } from "../util/abortable.js";
import { applyBeforeModel } from "./before-model.js";
import { compactConversation } from "./compaction.js";
import { type ModelTurn, streamModelTurn } from "./model-turn.js";

/** What one turn's model call needs. */
export interface ModelCallContext {
  readonly runId: string;
  readonly turn: number;
  readonly projection: Projection;
  readonly model: BoundModel;
  readonly signal: AbortSignal;
  readonly info: TurnInfo;
}

/**
 * Builds the turn's request from its projection and the conversation, lets the beforeModel
 * hooks rewrite it, and streams the answer. When the provider refuses the request as too
 * long before answering anything, the conversation is compacted once and the call retried;
 * `spend` is called once the summary (and its usage) is saved, to check the Run's budget.
 */
export async function callModel(
  session: SessionContext,
  journal: RunJournal,
  context: ModelCallContext,
  spend: () => void,
): Promise<ModelTurn> {
  const { runId, turn, model, signal } = context;
  const emit = journal.emit;
  let streamed = false;
  const watch: Emit = (event) => {
    streamed = true;
    emit(event);
  };
  let refusal: ModelCallError;
  try {
    return await streamModelTurn(model, await buildRequest(session, context), { runId, turn, signal, emit: watch });
  } catch (error) {
    const overflow = error instanceof ModelCallError && isModelProviderError(error.cause, "model_context_overflow");
    if (streamed || !overflow) throw error;
    refusal = error;
  }
  // The provider's refusal outranks the configured window: keep at most a share of what was sent.
  const window = session.contextBudget.contextWindow ?? model.contextWindow;
  const available = Math.min(
    window ? window - session.contextBudget.reserveOutputTokens : Number.POSITIVE_INFINITY,
    session.history.estimatedTokens,
  );
  const keepTokens = Math.floor(available * session.contextBudget.keepRecent);
  const compaction = await compactConversation(session, journal, {
    runId,
    reason: "budget",
    keepTokens,
    sessionModel: model,
    signal,
  });
  if (!compaction) throw refusal;
  if (compaction.usage) spend();
  return await streamModelTurn(model, await buildRequest(session, context), { runId, turn, signal, emit });
}

async function buildRequest(session: SessionContext, context: ModelCallContext): Promise<ModelRequest> {
  const tools: ToolSpec[] = [];
  const hostedTools: HostedToolSpec[] = [];
  for (const entry of context.projection.tools) {
    const bound = session.tools.get(entry.name);
    if (bound?.kind === "local") {
      tools.push({ name: bound.name, description: bound.tool.description, inputSchema: bound.tool.inputSchema });
    } else if (bound?.kind === "hosted") {
      hostedTools.push(bound.spec);
    }
  }
  const projected: ModelRequest = {
    system: context.projection.system,
    context: context.projection.context,
    // A copy: the history keeps growing after the request is handed over.
    messages: session.history.messages.slice(),
    tools,
    hostedTools,
  };
  const hooks = session.hooks.beforeModel;
  if (hooks.length === 0) return projected;
  return await abortable(applyBeforeModel(hooks, projected, context.info), context.signal);
}
