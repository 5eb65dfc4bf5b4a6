const codePattern = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A tool refused its input: thrown by a tool's `admit` (or its own code) to settle the call
 * as an error result whose text starts with `code`, so the model can branch on it. The code
 * is the tool's own (for example `path_invalid`), not one of Castellan's error codes: lower
 * case letters, digits and `_`, starting with a letter, at most 64 characters. The message
 * should say what to do next.
 */
export class ToolInputError extends Error {
  /** The tool's code for the refusal. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    if (!codePattern.test(code)) {
      throw new TypeError(
        `ToolInputError: code ${JSON.stringify(code)} must be 1-64 lower-case letters, digits or "_", starting with a letter.`,
      );
    }
    this.code = code;
    this.name = "ToolInputError";
  }

  /** The text a model is given: the code, then the message. */
  get resultText(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** True for a {@link ToolInputError}, optionally of one code. */
export function isToolInputError(error: unknown, code?: string): error is ToolInputError {
  return error instanceof ToolInputError && (code === undefined || error.code === code);
}
