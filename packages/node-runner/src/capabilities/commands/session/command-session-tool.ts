import { defineTool, type Tool, ToolInputError } from "@castellan/harness";
import type { CommandRuntimeOf } from "./exec-command-tool.js";
import { reportOrRefusal } from "./report.js";

/** The input of `command_session`. */
export interface CommandSessionInput {
  /** A handle `exec_command` returned in this Session. */
  readonly commandId: string;
  /** `poll`: wait briefly and return only new output; `stop`: end the process group and await it. */
  readonly action: "poll" | "stop";
}

/** What `command_session`'s `admit` says; the plugin's permission hook allows it for the Session's own handles. */
export interface CommandSessionAdmission {
  readonly policyKey: "command_session";
  readonly commandId: string;
}

const description = `Poll or stop a command exec_command started in this Session, by its commandId. "poll" waits briefly and returns only output that is new since the last report (and the outcome once it ended); "stop" ends the whole process group (SIGTERM, then SIGKILL) and returns its final report. The result is one JSON command-session-report.`;

/** `command_session`: polls or stops a handle of the calling Session; not read-only. */
export function createCommandSessionTool(runtimeOf: CommandRuntimeOf): Tool<CommandSessionInput> {
  return defineTool<CommandSessionInput>({
    name: "command_session",
    description,
    inputSchema: {
      type: "object",
      properties: {
        commandId: { type: "string", minLength: 1, description: "The handle exec_command returned." },
        action: { type: "string", enum: ["poll", "stop"] },
      },
      required: ["commandId", "action"],
      additionalProperties: false,
    },
    async admit(input, ctx) {
      const runtime = runtimeOf(ctx);
      const { sessionId } = ctx;
      const { commandId } = input;
      if (!runtime.handles.knows(sessionId, commandId)) {
        // Not launched by this live Session: the host's store may still hold its receipt.
        const receipt = await runtime.readReceipt(sessionId, commandId, { toolName: "command_session", ...ctx });
        if (!receipt) {
          throw new ToolInputError(
            "command_unknown",
            `${JSON.stringify(commandId)} is not a command of this Session. Use a commandId exec_command returned here, or launch the command again.`,
          );
        }
        runtime.handles.addReceipt(sessionId, commandId);
      }
      const admission: CommandSessionAdmission = { policyKey: "command_session", commandId };
      return { admission: { ...admission } };
    },
    // The process was approved once, when it was launched: its own Session polls and stops it freely.
    permission(request, ctx) {
      const admission = request.admission as { policyKey?: unknown; commandId?: unknown } | null | undefined;
      if (admission?.policyKey !== "command_session" || typeof admission.commandId !== "string") return "defer";
      const runtime = runtimeOf({ sessionId: request.sessionId, sandbox: ctx.sandbox, resources: ctx.resources });
      return runtime.handles.knows(request.sessionId, admission.commandId) ? "allow" : "defer";
    },
    execute: (input, ctx) => reportOrRefusal(() => runtimeOf(ctx).act(input.commandId, input.action, ctx)),
  });
}
