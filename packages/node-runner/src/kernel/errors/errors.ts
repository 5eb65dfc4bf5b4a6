import { CastellanError } from "@castellan/harness";

/** Another writer holds the Session (in this process or another). */
export class SessionLockedError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("session_locked", message, options);
  }
}

/** A saved history cannot be used as it is; nothing was changed on disk. */
export class SessionLogError extends CastellanError {
  /** Where the fault is, when it is a file. */
  readonly path: string | undefined;
  /** The 1-based line (record) of the fault, when known. */
  readonly line: number | undefined;

  constructor(
    code: "session_log_corrupt" | "session_log_unsupported" | "session_log_write_failed",
    message: string,
    options: { cause?: unknown; path?: string; line?: number } = {},
  ) {
    super(code, message, options);
    this.path = options.path;
    this.line = options.line;
  }
}

/** The saved Session belongs to another agent, or was saved with other parameters. */
export class SessionMismatchError extends CastellanError {
  constructor(code: "session_agent_mismatch" | "session_params_mismatch", message: string) {
    super(code, message);
  }
}

/** Session parameters are missing a declared key or are not JSON. */
export class ParamsError extends CastellanError {
  constructor(message: string) {
    super("params_invalid", message);
  }
}

/** A model name cannot be resolved, or model registrations conflict. */
export class ModelResolutionError extends CastellanError {
  constructor(
    code: "model_not_found" | "model_ambiguous" | "model_registration" | "model_resolution_failed",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** A host tool reference has no registration, or a name is bound twice. */
export class ToolBindingError extends CastellanError {
  constructor(code: "tool_not_found" | "tool_ambiguous", message: string) {
    super(code, message);
  }
}

/** A plugin's registration is invalid or conflicts with another's. */
export class PluginError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("plugin_invalid", message, options);
  }
}

/** The Run was aborted (by its signal, the Session's, or close). */
export class RunAbortedError extends CastellanError {
  constructor(message = "The run was aborted.", options?: { cause?: unknown }) {
    super("run_aborted", message, options);
  }
}

/** The model call failed; `cause` is the adapter's error. */
export class ModelCallError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("model_failed", message, options);
  }
}

/** The Session cannot take this call in its current state (closed, or a Run already active). */
export class SessionStateError extends CastellanError {
  constructor(
    code: "session_closed" | "run_active" | "run_ended" | "nothing_to_resume" | "approval_not_pending",
    message: string,
  ) {
    super(code, message);
  }
}

/** A resource, the sandbox or a plugin failed while a Session was opening or closing. */
export class ResourceError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("resource_failed", message, options);
  }
}

/** An option is malformed or out of range; the message names the field and what it accepts. */
export class InvalidOptionsError extends CastellanError {
  constructor(message: string) {
    super("invalid_options", message);
  }
}

/**
 * Opening a Session (or creating a Runner) was aborted through its signal, however far it had
 * got; whatever it had acquired was released and nothing was written. Named `AbortError`, like
 * the platform's abort errors, with the signal's reason (or the failure the abort caused) as
 * its cause.
 */
export class AbortedError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("aborted", message, options);
    this.name = "AbortError";
  }
}

/** A `sessionStart` or `sessionEnd` hook (a plugin's or a capability's) failed: the open failed, or the close reports it. */
export class SessionHookError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("session_hook_failed", message, options);
  }
}

/**
 * The host side of a tool failed, not the work the model asked for: a sandbox's prepare or
 * finalize, a worker that crashed, a failing terminal reader. A tool throws it so the result
 * names a host failure; host plugins import the class to tell the two apart.
 */
export class ToolExecutionHostError extends CastellanError {
  readonly toolName: string;
  readonly toolCallId: string;

  constructor(
    message: string,
    options: { readonly toolName: string; readonly toolCallId: string; readonly cause?: unknown },
  ) {
    super("tool_execution_host_error", message, options.cause === undefined ? {} : { cause: options.cause });
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
  }
}

/** An input identity (`run(input, { inputId })`, `run.join`) already in the Session's history. */
export class InputDuplicateError extends CastellanError {
  readonly inputId: string;

  constructor(inputId: string, sessionId: string) {
    super("input_duplicate", `Session "${sessionId}" already has input ${JSON.stringify(inputId)}; nothing was saved.`);
    this.inputId = inputId;
  }
}

/** Two tools of the Program have one name after an MCP tool's name was mapped. */
export class McpToolNameCollisionError extends CastellanError {
  constructor(name: string, first: string, second: string) {
    super("mcp_tool_name_collision", `Two tools would both be named "${name}": ${first} and ${second}.`);
  }
}
