import { CastellanError } from "@castellan/harness";

/** The sandbox policy or its setting is malformed: a relative path, an unknown key, a bad domain, a writable runtime package; the message names it. */
export class SandboxConfigError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("sandbox_config_invalid", message, options);
  }
}

/** The sandbox cannot run here: a missing `bwrap`, `socat` or `rg`, an unsupported platform, or a runtime that did not initialize. Nothing runs unsandboxed instead. */
export class SandboxUnavailableError extends CastellanError {
  /** What is missing, e.g. `["bwrap"]`; empty when the runtime itself failed. */
  readonly missing: readonly string[];

  constructor(message: string, missing: readonly string[], options?: { cause?: unknown }) {
    super("sandbox_unavailable", message, options);
    this.missing = Object.freeze([...missing]);
  }
}

/** Another sandbox profile is active in this process; one profile may be active at a time. */
export class SandboxProfileConflictError extends CastellanError {
  constructor(message: string) {
    super("sandbox_profile_conflict", message);
  }
}
