import type { Interface } from "node:readline";
import { CastellanError } from "@castellan/harness";
import type { ToolApprovalAdapter, ToolApprovalAnswer, ToolApprovalRequest } from "../permissions/types.js";
import type { NodeRunnerPlugin } from "../runner/plugin.js";

/** Options for {@link terminalApproval}. */
export interface TerminalApprovalOptions {
  /** Where answers are read, one line each. Default: `process.stdin`. */
  readonly input?: NodeJS.ReadableStream;
  /**
   * Where prompts are written. Default: `process.stderr`, so that the program's own output on
   * stdout stays clean (e.g. when piped).
   */
  readonly output?: NodeJS.WritableStream;
  /**
   * Called on Ctrl+C while the input is a TTY and a question is being asked (after the pending
   * request has been denied). Default: none; Ctrl+C then only denies the pending request.
   */
  readonly onInterrupt?: () => void;
  /** The plugin's name. Default: `"castellan.terminal-approval"`. */
  readonly name?: string;
}

/** The plugin returned by {@link terminalApproval}; `close` is synchronous and idempotent. */
export interface TerminalApprovalPlugin extends NodeRunnerPlugin {
  close(): void;
}

/** A terminal approval request was withdrawn (its signal aborted) or the approver was closed. */
export class TerminalApprovalError extends CastellanError {
  constructor(code: "approval_aborted" | "approval_closed", message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** The question that ends every prompt. */
export const TERMINAL_APPROVAL_QUESTION = "Allow? [y/N] ";

const DENIED = "denied at the terminal";
const ALWAYS = "allowed always for this Session at the terminal";
const INPUT_ENDED = "the terminal input ended before an answer";
const INTERRUPTED = "interrupted at the terminal (Ctrl+C)";

// Terminal controls and bidirectional overrides that could hide or rewrite what is shown. Inside the
// JSON they can only occur in strings, where a \uXXXX escape is the same JSON value.
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** Escapes control (except newline and tab) and bidi characters as `\uXXXX`; keeps everything else. */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, (c) =>
    c === "\n" || c === "\t" ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Tools whose calls are never allowed "always": each host a model asks to reach is decided on its own. */
const neverAlways: ReadonlySet<string> = new Set(["request_network_access"]);

/**
 * What "always" remembers for a request: its admission's `policyKey` (e.g. `exec_command`),
 * else the tool name; undefined for a tool never allowed "always" (`request_network_access`).
 */
export function alwaysKeyOf(request: ToolApprovalRequest): string | undefined {
  if (neverAlways.has(request.toolName)) return undefined;
  const policyKey = (request.admission as { policyKey?: unknown } | null | undefined)?.policyKey;
  return typeof policyKey === "string" && policyKey !== "" ? policyKey : request.toolName;
}

/** The text shown for a request, before the question: what the call does and exactly what it holds. */
export function formatApprovalPrompt(request: ToolApprovalRequest): string {
  const lines = ["", `Tool approval requested: ${request.title ?? request.toolName}`, `  agent:  ${request.agent.id}`];
  if (request.parent) {
    const p = request.parent;
    lines.push(`  parent: tool call ${p.toolCallId} (${p.toolName}) in session ${p.sessionId}, run ${p.runId}`);
  }
  lines.push(`  tool:   ${request.toolName} (${request.readOnly ? "read-only" : "not read-only: may make changes"})`);
  if (request.reason !== undefined) lines.push(`  reason: ${request.reason}`);
  if (request.summary) lines.push(request.summary);
  lines.push("  input:", JSON.stringify(request.input, null, 2));
  if (request.admission !== undefined) lines.push("  admission:", JSON.stringify(request.admission, null, 2));
  const key = alwaysKeyOf(request);
  if (key !== undefined) lines.push(`  (answer a to allow this and every later ${key} call of this Session)`);
  lines.push("");
  return escapeForTerminal(lines.join("\n"));
}

/** Whether a typed answer allows the call: `y` or `yes`, trimmed, in any case. */
export function isAllowAnswer(line: string): boolean {
  const answer = line.trim().toLowerCase();
  return answer === "y" || answer === "yes";
}

/** Whether a typed answer allows the call and every later one of its key in the Session: `a` or `always`. */
export function isAlwaysAnswer(line: string): boolean {
  const answer = line.trim().toLowerCase();
  return answer === "a" || answer === "always";
}

type InputEvent = { kind: "line"; line: string } | { kind: "end" | "interrupt" | "closed" | "aborted" };

/**
 * Answers `ask` decisions by asking at the terminal. Each request prints the call's title, the
 * agent, parent tool call, tool, read-only trait, reason, the call's summary (a diff, a command
 * line), the exact final input and the tool's admission, if any (`JSON.stringify(value, null, 2)`;
 * only terminal control and bidi characters inside strings are shown as `\uXXXX`), never the
 * tool's model-facing description, then asks `Allow? [y/N] `. `y`/`yes` allows; `a`/`always`
 * allows it and every later call of the same key in that Session (the admission's `policyKey`,
 * else the tool name; never offered for `request_network_access`); any other line, including an
 * empty one, denies; end of input denies. Requests are asked one at a time, in order. Input is read line by line (readline, created on
 * the first request; terminal mode only when `input.isTTY`), so lines typed ahead are kept and each
 * answers the next question. The input is paused (and a TTY left in cooked mode, so Ctrl+C behaves
 * normally) between questions. A request whose signal aborts is withdrawn and rejects with a
 * {@link TerminalApprovalError} `approval_aborted`; after `close`, requests reject with
 * `approval_closed`.
 */
export function terminalApproval(options: TerminalApprovalOptions = {}): TerminalApprovalPlugin {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const terminal = (input as { isTTY?: boolean }).isTTY === true;
  const typedAhead: string[] = [];
  let rl: Interface | undefined;
  let ended = false;
  let closed = false;
  let waiter: ((event: InputEvent) => void) | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  /** What "always" allowed: `<sessionId>\u0000<key>`, for the approver's life. */
  const always = new Set<string>();
  const alwaysEntry = (request: ToolApprovalRequest): string | undefined => {
    const key = alwaysKeyOf(request);
    return key === undefined ? undefined : `${request.sessionId}\u0000${key}`;
  };

  const closedError = () => new TerminalApprovalError("approval_closed", "The terminal approval has been closed.");
  const abortedError = (signal: AbortSignal) =>
    new TerminalApprovalError("approval_aborted", "The approval request was withdrawn.", { cause: signal.reason });

  function deliver(event: InputEvent): void {
    const wake = waiter;
    waiter = undefined;
    if (wake) wake(event);
    else if (event.kind === "line") typedAhead.push(event.line);
    else if (event.kind === "interrupt") options.onInterrupt?.();
  }

  function setRaw(mode: boolean): void {
    const tty = input as { setRawMode?: (mode: boolean) => unknown };
    if (terminal && !ended && typeof tty.setRawMode === "function") tty.setRawMode(mode);
  }

  function open(): Interface {
    if (rl) return rl;
    const created = process
      .getBuiltinModule("node:readline")
      .createInterface({ input, output, terminal, prompt: TERMINAL_APPROVAL_QUESTION });
    created.on("line", (line) => deliver({ kind: "line", line }));
    created.on("close", () => {
      ended = true;
      if (!closed) deliver({ kind: "end" });
    });
    created.on("SIGINT", () => deliver({ kind: "interrupt" }));
    rl = created;
    return created;
  }

  function next(signal: AbortSignal): Promise<InputEvent> {
    const line = typedAhead.shift();
    if (line !== undefined) return Promise.resolve({ kind: "line", line });
    if (ended) return Promise.resolve({ kind: "end" });
    return new Promise((resolve) => {
      const onAbort = () => deliver({ kind: "aborted" });
      signal.addEventListener("abort", onAbort, { once: true });
      waiter = (event) => {
        signal.removeEventListener("abort", onAbort);
        resolve(event);
      };
    });
  }

  async function ask(request: ToolApprovalRequest, signal: AbortSignal): Promise<ToolApprovalAnswer> {
    if (closed) throw closedError();
    if (signal.aborted) throw abortedError(signal);
    const entry = alwaysEntry(request);
    if (entry !== undefined && always.has(entry)) {
      output.write(escapeForTerminal(`\n(allowed always for this Session: ${request.title ?? request.toolName})\n`));
      return { decision: "allow", reason: ALWAYS };
    }
    const reader = open();
    output.write(formatApprovalPrompt(request));
    if (ended) output.write(TERMINAL_APPROVAL_QUESTION);
    else {
      setRaw(true);
      reader.prompt();
    }
    const event = await next(signal);
    if (!terminal && event.kind === "line") output.write("\n");
    if (event.kind === "interrupt" || event.kind === "aborted") discardPartialLine(reader);
    if (!ended && !closed) {
      setRaw(false);
      reader.pause();
    }
    switch (event.kind) {
      case "line": {
        // "always" is offered only where the prompt said so; elsewhere it is no yes.
        if (entry !== undefined && isAlwaysAnswer(event.line)) {
          always.add(entry);
          return { decision: "allow", reason: ALWAYS };
        }
        return isAllowAnswer(event.line) ? { decision: "allow" } : { decision: "deny", reason: DENIED };
      }
      case "end":
        output.write("\n(input ended: denied)\n");
        return { decision: "deny", reason: INPUT_ENDED };
      case "interrupt":
        output.write("\n(interrupted: denied)\n");
        queueMicrotask(() => options.onInterrupt?.());
        return { decision: "deny", reason: INTERRUPTED };
      case "aborted":
        output.write("\n(approval request withdrawn)\n");
        throw abortedError(signal);
      case "closed":
        throw closedError();
    }
  }

  function discardPartialLine(reader: Interface): void {
    // Ctrl+E, Ctrl+U: forget what was typed for the withdrawn question (terminal mode only).
    if (!terminal || ended || closed) return;
    reader.write(null, { ctrl: true, name: "e" });
    reader.write(null, { ctrl: true, name: "u" });
  }

  const adapter: ToolApprovalAdapter = {
    request(request, { signal }) {
      if (closed) return Promise.reject(closedError());
      if (signal.aborted) return Promise.reject(abortedError(signal));
      return new Promise<ToolApprovalAnswer>((resolve, reject) => {
        // Still queued when aborted: reject now; `ask` skips it when its turn comes.
        const onAbort = () => reject(abortedError(signal));
        signal.addEventListener("abort", onAbort, { once: true });
        const turn = tail.then(() => ask(request, signal));
        tail = turn.catch(() => undefined);
        turn.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
      });
    },
  };

  return {
    name: options.name ?? "castellan.terminal-approval",
    apply(host) {
      host.registerApproval(adapter);
    },
    close() {
      if (closed) return;
      closed = true;
      typedAhead.length = 0;
      deliver({ kind: "closed" });
      const reader = rl;
      rl = undefined;
      reader?.close();
    },
  };
}
