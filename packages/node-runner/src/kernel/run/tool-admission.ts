import type { JsonValue, ToolResult } from "@castellan/harness";
import { errorMessage, findNonJson, frozenJsonCopy, isToolInputError } from "@castellan/harness";
import type { SessionContext } from "../context/session-context.js";
import { errorResult } from "../tools/tool-output.js";
import { abortable } from "../util/abortable.js";
import { resourcesOf, type ToolExecution } from "./tool-execution.js";

/** A call its tool admitted: the input everyone after sees, and what `admit` said of it. */
export interface Admitted {
  readonly input: JsonValue;
  /** Absent for a tool without `admit`. */
  readonly admission?: JsonValue;
}

/**
 * Runs the tool's own `admit` check on a validated call, before any permission question. A
 * refusal (any throw) becomes the call's error result: a `ToolInputError` is given as
 * `code: message`. An input `admit` replaces is validated against the schema again, and the
 * admission must be JSON; both are frozen copies. Rejects only when the Run is aborted.
 */
export async function admitCall(
  session: SessionContext,
  item: ToolExecution,
  context: { readonly runId: string; readonly signal: AbortSignal },
): Promise<Admitted | { readonly refused: ToolResult }> {
  const admit = item.tool.tool.admit;
  if (!admit) return { input: item.input };
  const name = item.call.name;
  let answer: unknown;
  try {
    answer = await abortable(
      Promise.resolve().then(() =>
        admit.call(item.tool.tool, item.input, {
          sessionId: session.sessionId,
          runId: context.runId,
          toolCallId: item.call.id,
          agent: session.agent,
          signal: context.signal,
          sandbox: session.sandbox,
          resources: resourcesOf(session, item),
        }),
      ),
      context.signal,
    );
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (isToolInputError(error)) return { refused: errorResult(error.resultText) };
    return { refused: errorResult(`Tool "${name}" refused the call: ${errorMessage(error)}`) };
  }
  if (answer === null || typeof answer !== "object" || !("admission" in answer)) {
    return { refused: errorResult(`Tool "${name}" could not admit the call: its admit returned no admission.`) };
  }
  const { admission, input } = answer as { admission: unknown; input?: unknown };
  const nonJson = findNonJson(admission) ?? (input === undefined ? undefined : findNonJson(input));
  if (admission === undefined || nonJson !== undefined) {
    return {
      refused: errorResult(`Tool "${name}" could not admit the call: its admit returned a value that is not JSON.`),
    };
  }
  if (input === undefined) return { input: item.input, admission: frozenJsonCopy(admission as JsonValue) };
  const replaced = frozenJsonCopy(input as JsonValue);
  const checked = await item.tool.validate(replaced);
  if (checked.problem !== undefined) {
    return {
      refused: errorResult(
        `Tool "${name}" could not admit the call: the input its admit returned is invalid: ${checked.problem}.`,
      ),
    };
  }
  const validated = checked.input === replaced ? replaced : frozenJsonCopy(checked.input);
  return { input: validated, admission: frozenJsonCopy(admission as JsonValue) };
}
