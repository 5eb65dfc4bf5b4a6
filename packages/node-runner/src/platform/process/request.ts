import { isAbsolute } from "node:path";
import { InvalidOptionsError } from "../../kernel/errors/errors.js";
import { checkInteger, maxTimerMs } from "./options.js";
import type { CommandSpawnRequest, CommandWaitOptions } from "./types.js";

// Requests come from the layer above, not from the model; a malformed one is a bug there, so
// it fails at once with the field named instead of reaching `spawn` half-checked.

const requestFields = [
  "ownerKey",
  "command",
  "shell",
  "cwd",
  "env",
  "lifetime",
  "signal",
  "onTerminal",
  "layer",
  "executionTimeoutMs",
  "maxOutputBytesPerStream",
  "onOutput",
];

function fail(message: string): never {
  throw new InvalidOptionsError(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A non-empty owner key, or `invalid_options`. */
export function checkOwnerKey(ownerKey: unknown): string {
  if (typeof ownerKey !== "string" || ownerKey === "") fail("ownerKey must be a non-empty string.");
  return ownerKey;
}

/** A frozen copy of `request` (its env copied too); throws `invalid_options` naming a malformed field. */
export function checkSpawnRequest(request: CommandSpawnRequest): CommandSpawnRequest {
  if (!isRecord(request)) fail("A command spawn request must be an object.");
  for (const key of Object.keys(request)) {
    if (!requestFields.includes(key))
      fail(`${key} is not a spawn request field; the fields are ${requestFields.join(", ")}.`);
  }
  const { ownerKey, command, shell, cwd, env, lifetime, signal, onTerminal, layer, onOutput } = request;
  if (request.executionTimeoutMs !== undefined) {
    checkInteger(request.executionTimeoutMs, "executionTimeoutMs", 1, maxTimerMs, "milliseconds");
  }
  if (request.maxOutputBytesPerStream !== undefined) {
    checkInteger(request.maxOutputBytesPerStream, "maxOutputBytesPerStream", 1_024, 16_777_216, "bytes");
  }
  if (onOutput !== undefined && typeof onOutput !== "function") fail("onOutput must be a function.");
  checkOwnerKey(ownerKey);
  if (typeof command !== "string") fail("command must be a string.");
  if (!isRecord(shell) || typeof shell.executable !== "string" || shell.executable === "") {
    fail("shell must be { executable, arguments } with a non-empty executable.");
  }
  if (!Array.isArray(shell.arguments) || !shell.arguments.every((argument) => typeof argument === "string")) {
    fail("shell.arguments must be an array of strings.");
  }
  if (cwd instanceof URL ? cwd.protocol !== "file:" : typeof cwd !== "string" || !isAbsolute(cwd)) {
    fail("cwd must be an absolute path or a file: URL.");
  }
  if (!isRecord(env) || !Object.values(env).every((value) => typeof value === "string")) {
    fail("env must be an object of string values.");
  }
  if (lifetime !== undefined && lifetime !== "ordinary" && lifetime !== "session") {
    fail(`lifetime must be "ordinary" or "session"; got ${JSON.stringify(lifetime)}.`);
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) fail("signal must be an AbortSignal.");
  if (onTerminal !== undefined && typeof onTerminal !== "function") fail("onTerminal must be a function.");
  if (
    layer !== undefined &&
    (!isRecord(layer) ||
      typeof layer.prepare !== "function" ||
      (layer.finalize !== undefined && typeof layer.finalize !== "function"))
  ) {
    fail("layer must be { prepare, finalize? } with functions.");
  }
  return Object.freeze({
    ownerKey,
    command,
    shell: Object.freeze({ executable: shell.executable, arguments: Object.freeze([...shell.arguments]) }),
    cwd,
    env: Object.freeze({ ...env }),
    lifetime: lifetime ?? "ordinary",
    signal,
    onTerminal,
    ...(layer === undefined ? {} : { layer }),
    ...(request.executionTimeoutMs === undefined ? {} : { executionTimeoutMs: request.executionTimeoutMs }),
    ...(request.maxOutputBytesPerStream === undefined
      ? {}
      : { maxOutputBytesPerStream: request.maxOutputBytesPerStream }),
    ...(onOutput === undefined ? {} : { onOutput }),
  });
}

/** `options` checked; throws `invalid_options` naming a malformed field. */
export function checkWaitOptions(options: CommandWaitOptions): CommandWaitOptions {
  if (!isRecord(options)) fail("waitFor's options must be an object.");
  checkInteger(options.untilMs, "untilMs", 0, maxTimerMs, "milliseconds");
  if (options.untilOutput !== undefined && typeof options.untilOutput !== "boolean")
    fail("untilOutput must be a boolean.");
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) fail("signal must be an AbortSignal.");
  return options;
}
