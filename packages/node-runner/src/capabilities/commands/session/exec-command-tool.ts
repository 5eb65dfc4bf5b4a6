import { type BindingHandle, defineTool, type Tool, ToolInputError } from "@castellan/harness";
import { resolveWorkdir } from "../runtime/workdir.js";
import type { CommandSessionLifetime } from "./ports.js";
import { reportOrRefusal } from "./report.js";
import type { CommandSessionRuntime } from "./runtime.js";

/** The input of `exec_command`. */
export interface ExecCommandInput {
  /** The shell command text, 1 to 65,536 bytes of UTF-8. */
  readonly command: string;
  /** `"session"` for a service needed across Runs: no execution deadline. Default: the Run's ordinary lifetime. */
  readonly lifetime?: "session";
  /** A workspace path of the directory to start in, beneath the working directory. Default `.`. */
  readonly workdir?: string;
}

/** What `exec_command`'s `admit` says a call will do; permission hooks key on `policyKey`. */
export interface ExecCommandAdmission {
  /** `"exec_command:session"` for a session-lifetime launch, so an ordinary grant never covers it. */
  readonly policyKey: "exec_command" | "exec_command:session";
  readonly command: string;
  readonly lifetime: CommandSessionLifetime;
  /** The workspace path it starts in; `.` for the working directory. */
  readonly workdir: string;
}

/** Longest command text accepted, in UTF-8 bytes. */
export const maxCommandBytes = 65_536;

const description = `Run a shell command in the workspace (no TTY, stdin is empty). Waits a short while: a command that finishes returns its final report; one still running returns a handle (state "running") to poll or stop with command_session. Ordinary commands end at the execution deadline (outcome "timeout", exit code 124). Pass lifetime "session" only for a service needed across Runs (a dev server, a watcher): it has no deadline and lives until stopped or the Session closes. Reuse a live handle instead of backgrounding or restarting a service. The result is one JSON command-session-report; a non-zero exit code is a result, not an error.`;

/** Finds the runtime a call's commands run on: the plugin's one, or the Session's own in `workspace()`. */
export type CommandRuntimeOf = (call: {
  readonly sessionId: string;
  readonly sandbox: unknown;
  readonly resources: readonly BindingHandle[];
}) => CommandSessionRuntime;

// Which runtime an `exec_command` tool launches on, so a host command runs where the model's do.
const runtimes = new WeakMap<Tool, CommandRuntimeOf>();

/** The runtime finder of an `exec_command` tool made here; undefined for any other tool. */
export function commandRuntimeOfTool(tool: Tool): CommandRuntimeOf | undefined {
  return runtimes.get(tool);
}

/** `exec_command`: launches one command through the call's runtime; not read-only. */
export function createExecCommandTool(runtimeOf: CommandRuntimeOf): Tool<ExecCommandInput> {
  const tool = execCommandTool(runtimeOf);
  runtimes.set(tool, runtimeOf);
  return tool;
}

function execCommandTool(runtimeOf: CommandRuntimeOf): Tool<ExecCommandInput> {
  return defineTool<ExecCommandInput>({
    name: "exec_command",
    description,
    inputSchema: {
      type: "object",
      properties: {
        command: { type: "string", minLength: 1, description: "The shell command text." },
        lifetime: {
          type: "string",
          enum: ["session"],
          description: 'Only "session", for a service that must outlive this Run; omit otherwise.',
        },
        workdir: { type: "string", description: "Workspace path of the directory to run in; default the root." },
      },
      required: ["command"],
      additionalProperties: false,
    },
    async admit(input, ctx) {
      const runtime = runtimeOf(ctx);
      runtime.layer?.checkCall(ctx);
      checkCommand(input.command);
      const workdir = await resolveWorkdir(runtime.options.root, input.workdir);
      runtime.checkCanLaunch(ctx.sessionId);
      const lifetime: CommandSessionLifetime = input.lifetime === "session" ? "session" : "run";
      const admission: ExecCommandAdmission = {
        policyKey: lifetime === "session" ? "exec_command:session" : "exec_command",
        command: input.command,
        lifetime,
        workdir: workdir.path,
      };
      return { admission: { ...admission } };
    },
    describeCall: (input, admission) => {
      const admitted = admission as Partial<ExecCommandAdmission> | undefined;
      const workdir = admitted?.workdir ?? input.workdir ?? ".";
      const lifetime = input.lifetime === "session" ? " (kept for the Session)" : "";
      return {
        title: `Run a command${lifetime}: ${input.command.split("\n")[0]}`,
        summary: `$ ${input.command}\nin ${workdir}`,
      };
    },
    execute: (input, ctx) =>
      reportOrRefusal(async () => {
        const runtime = runtimeOf(ctx);
        runtime.layer?.checkCall(ctx);
        checkCommand(input.command);
        // Resolved again: approval may have waited, and the directory may have changed meanwhile.
        const workdir = await resolveWorkdir(runtime.options.root, input.workdir);
        const lifetime: CommandSessionLifetime = input.lifetime === "session" ? "session" : "run";
        return await runtime.launch({ command: input.command, lifetime, cwd: workdir.absolute }, ctx);
      }),
  });
}

function checkCommand(command: string): void {
  const bytes = Buffer.byteLength(command, "utf8");
  if (bytes < 1 || bytes > maxCommandBytes) {
    throw new ToolInputError(
      "command_invalid",
      `The command must be 1 to ${maxCommandBytes.toLocaleString("en")} bytes of UTF-8; it is ${bytes}. Put a long script in a file and run that.`,
    );
  }
}
