import type {
  ContentBlock,
  ErrorInfo,
  HostedToolSpec,
  ModelRequest,
  RunResult,
  ToolSpec,
  Usage,
} from "@castellan/harness";
import { CastellanError, projectTurn, textOf } from "@castellan/harness";
import { RunAbortedError } from "../errors.js";
import { type Emit, type SessionCore, turnContext } from "../session/session-core.js";
import { abortable } from "../util/abortable.js";
import { applyBeforeModel } from "./before-model.js";
import { streamModelTurn } from "./model-turn.js";
import { runToolBatch } from "./tool-batch.js";

/** A turn-limit stop: the Run made as many model calls as it may. */
export class MaxTurnsError extends CastellanError {
  constructor(maxTurns: number) {
    super("max_turns", `The run reached its limit of ${maxTurns} turns without a final answer.`);
  }
}

/**
 * The turn loop of one Run: project the Program, call the model, settle its tool calls, and
 * repeat until a turn ends without tool calls. Every settled fact is persisted before it is
 * reported. Resolves with the result, or rejects with the typed error the Run ended with
 * (after `run-end` has been recorded and reported).
 */
export async function executeRun(
  core: SessionCore,
  run: { readonly runId: string; readonly input: readonly ContentBlock[]; readonly signal: AbortSignal },
  emit: Emit,
): Promise<RunResult> {
  const { runId, input, signal } = run;
  let turns = 0;
  let started = false;
  const usage = { inputTokens: 0, outputTokens: 0 };
  try {
    if (signal.aborted) throw new RunAbortedError();
    await core.persist([{ kind: "run-start", runId, input }]);
    started = true;
    emit({ kind: "run-start", runId, sessionId: core.sessionId, input });
    while (true) {
      if (signal.aborted) throw new RunAbortedError();
      if (turns >= core.limits.maxTurns) throw new MaxTurnsError(core.limits.maxTurns);
      const turn = ++turns;
      const info = { agent: { id: core.agent.id }, sessionId: core.sessionId, runId, turn };
      for (const hook of core.registry.hooks.turnStart) await abortable(Promise.resolve(hook(info)), signal);
      emit({ kind: "turn-start", runId, turn });

      const projection = projectTurn(core.program, turnContext(core, turn));
      const tools: ToolSpec[] = [];
      const hostedTools: HostedToolSpec[] = [];
      for (const entry of projection.tools) {
        const bound = core.tools.get(entry.name);
        if (bound?.kind === "local") {
          tools.push({ name: bound.name, description: bound.tool.description, inputSchema: bound.tool.inputSchema });
        } else if (bound?.kind === "hosted") {
          hostedTools.push(bound.spec);
        }
      }
      const projected: ModelRequest = {
        system: projection.system,
        context: projection.context,
        // A copy: the history keeps growing after the request is handed over.
        messages: core.history.messages.slice(),
        tools,
        hostedTools,
      };
      const request = await abortable(applyBeforeModel(core.registry.hooks.beforeModel, projected, info), signal);
      const model = await abortable(core.model.resolve({ sessionId: core.sessionId, runId, signal }), signal);
      const answer = await streamModelTurn(model, request, { runId, turn, signal, emit });
      if (answer.usage) addUsage(usage, answer.usage);
      await core.persist([
        {
          kind: "assistant-message",
          runId,
          turn,
          message: answer.message,
          stopReason: answer.stopReason,
          model: model.specifier,
          ...(answer.usage ? { usage: answer.usage } : {}),
        },
      ]);
      emit({ kind: "assistant-message", runId, turn, message: answer.message, stopReason: answer.stopReason });

      if (answer.message.toolCalls.length === 0) {
        emit({ kind: "turn-end", runId, turn });
        const result: RunResult = {
          runId,
          content: answer.message.content,
          text: textOf(answer.message.content),
          turns,
          usage: { ...usage },
        };
        await core.persist([{ kind: "run-end", runId, status: "completed" }]);
        emit({ kind: "run-end", runId, status: "completed", result });
        return result;
      }
      const visible = new Set(projection.tools.map((tool) => tool.name));
      await runToolBatch(core, answer.message.toolCalls, { runId, turn, signal, emit, visible });
      emit({ kind: "turn-end", runId, turn });
    }
  } catch (caught) {
    const error =
      signal.aborted && !(caught instanceof RunAbortedError)
        ? new RunAbortedError(undefined, { cause: caught })
        : caught;
    const status = error instanceof RunAbortedError ? "aborted" : "failed";
    const info = errorInfo(error);
    // Record how a started Run ended, where the log still accepts it; the original error is what the caller gets.
    if (started) await core.persist([{ kind: "run-end", runId, status, error: info }]).catch(() => undefined);
    emit({ kind: "run-end", runId, status, error: info });
    throw error;
  }
}

function addUsage(total: { inputTokens: number; outputTokens: number; costUsd?: number }, usage: Usage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  if (usage.costUsd !== undefined) total.costUsd = (total.costUsd ?? 0) + usage.costUsd;
}

function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof CastellanError) return { code: error.code, message: error.message };
  return { code: "internal", message: error instanceof Error ? error.message : String(error) };
}
