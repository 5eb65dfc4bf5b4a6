import { CastellanError, type CastellanErrorCode } from "@castellan/harness";

/**
 * A failure of `castellan` itself with the exit code it ends with: 2 for a configuration or
 * usage problem (no provider, no terminal, an unknown Session), 1 for anything else. The
 * message names variables and paths, never a secret's value.
 */
export class CliError extends CastellanError {
  /** The process exit code this failure ends `castellan` with. */
  readonly exitCode: number;

  constructor(code: CastellanErrorCode, message: string, exitCode: 1 | 2 = 2) {
    super(code, message);
    this.exitCode = exitCode;
  }
}
