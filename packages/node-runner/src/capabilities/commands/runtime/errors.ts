import { CastellanError } from "@castellan/harness";

/** An option of `createCommandSessionPlugin`, `workspace()`'s commands or `createCommandRuntime` is missing, unknown, malformed or out of range; the message names it. */
export class CommandOptionsError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("command_options_invalid", message, options);
  }
}
