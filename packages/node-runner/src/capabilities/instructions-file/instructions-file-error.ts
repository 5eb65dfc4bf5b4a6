import { CastellanError } from "@castellan/harness";

/** Why an instructions file could not be used; each is a stable code. */
export type InstructionsFileErrorCode =
  | "instructions_file_missing"
  | "instructions_file_not_regular"
  | "instructions_file_invalid_utf8"
  | "instructions_file_blank";

/**
 * An `instructionsFile` could not be read when a Session opened: it is missing, not a
 * regular file, not UTF-8, or (system-placed) blank. Opening the Session rejects with it, after
 * releasing what was acquired.
 */
export class InstructionsFileError extends CastellanError {
  /** The declared `file:` URL. */
  readonly url: string;
  /** The file it resolved to through any symlinks; undefined when it did not resolve. */
  readonly path: string | undefined;

  constructor(
    code: InstructionsFileErrorCode,
    message: string,
    options: { readonly url: string; readonly path?: string; readonly cause?: unknown },
  ) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.url = options.url;
    this.path = options.path;
  }
}
