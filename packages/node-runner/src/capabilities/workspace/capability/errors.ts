import { CastellanError } from "@castellan/harness";

/** An option of `workspace()` is unknown, malformed, or does not fit the others; the message names it. */
export class WorkspaceOptionsError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("workspace_options_invalid", message, options);
  }
}
