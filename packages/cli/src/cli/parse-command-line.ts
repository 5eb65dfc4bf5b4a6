import { parseArgs } from "node:util";
import type { PermissionPreset } from "@castellan/node-runner";
import type { SandboxMode } from "../agent/cli-params.js";
import type { AgentFlags } from "../session/agent-flags.js";
import { defaultSessionsLimit } from "../sessions/list-sessions.js";

/** A bad command line: printed with the usage, exit 2. */
export class UsageError extends Error {}

/** The longest `--approval-wait`: one day, in ms. */
export const maxApprovalWaitMs = 86_400_000;

const options = {
  all: { type: "boolean" },
  json: { type: "boolean" },
  limit: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  print: { type: "string", short: "p" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "string" },
  permissions: { type: "string" },
  sandbox: { type: "string" },
  model: { type: "string" },
  browser: { type: "boolean" },
  "approval-wait": { type: "string" },
} as const;

/** A parsed `castellan` command line. */
export type CommandLine =
  | { readonly kind: "help" }
  | { readonly kind: "version" }
  | { readonly kind: "sessions"; readonly all: boolean; readonly json: boolean; readonly limit: number }
  | { readonly kind: "doctor"; readonly json: boolean }
  | {
      readonly kind: "print";
      readonly task: string;
      readonly json: boolean;
      readonly approvalWaitMs: number;
      readonly flags: AgentFlags;
    };

/** A whole number in `[min, max]`, or a usage error naming the flag. */
function wholeNumber(text: string, flag: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}.`);
  }
  return value;
}

function oneOf<T extends string>(text: string | undefined, flag: string, allowed: readonly T[]): T | undefined {
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")}, not ${JSON.stringify(text)}.`);
  }
  return text as T;
}

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true; strict: true }>>["values"];

/** The flags no command but the agent's takes, each refused elsewhere. */
const agentOnly = ["continue", "resume", "permissions", "sandbox", "model", "browser", "approval-wait"] as const;

function refuseFlags(values: Values, command: string, flags: readonly (keyof Values)[]): void {
  for (const flag of flags) {
    if (values[flag] !== undefined) throw new UsageError(`--${flag} does not apply to ${command}.`);
  }
}

function agentFlags(values: Values): AgentFlags {
  if (values.resume !== undefined && values.resume.trim() === "") throw new UsageError("--resume needs a Session id.");
  return {
    continue: values.continue ?? false,
    resume: values.resume,
    permissions:
      oneOf<PermissionPreset>(values.permissions, "--permissions", ["read-only", "ask-on-write", "full-access"]) ??
      "ask-on-write",
    sandbox: oneOf<SandboxMode>(values.sandbox, "--sandbox", ["os", "none"]),
    model: values.model,
    browser: values.browser,
  };
}

/** Parses `castellan`'s arguments (after the program name). Throws {@link UsageError}. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  if (values.print !== undefined) {
    if (positionals.length > 0) {
      throw new UsageError(`-p takes the task as its value; quote it: castellan -p "${positionals.join(" ")}".`);
    }
    refuseFlags(values, "-p", ["all", "limit"]);
    return {
      kind: "print",
      task: values.print,
      json: values.json ?? false,
      approvalWaitMs:
        values["approval-wait"] === undefined
          ? 0
          : wholeNumber(values["approval-wait"], "--approval-wait", 0, maxApprovalWaitMs),
      flags: agentFlags(values),
    };
  }
  const [command, ...rest] = positionals;
  if (command === "sessions" && rest.length === 0) {
    refuseFlags(values, "sessions", agentOnly);
    return {
      kind: "sessions",
      all: values.all ?? false,
      json: values.json ?? false,
      limit: values.limit === undefined ? defaultSessionsLimit : wholeNumber(values.limit, "--limit", 1, 10_000),
    };
  }
  if (command === "doctor" && rest.length === 0) {
    refuseFlags(values, "doctor", [...agentOnly, "all", "limit"]);
    return { kind: "doctor", json: values.json ?? false };
  }
  throw new UsageError(
    command === undefined ? "no command given." : `unknown command ${JSON.stringify(positionals.join(" "))}.`,
  );
}
