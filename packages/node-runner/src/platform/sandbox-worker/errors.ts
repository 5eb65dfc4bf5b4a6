import { CastellanError } from "@castellan/harness";

/** The compiled sandbox worker is not where the package keeps it; the message names the build command. */
export class SandboxWorkerMissingError extends CastellanError {
  /** The path the worker was looked for at. */
  readonly entry: string;

  constructor(entry: string) {
    super(
      "sandbox_worker_missing",
      `The sandbox worker is missing: ${entry} does not exist. Build it with "npm run build" (tsc -b) in the Castellan checkout, or reinstall @castellan/node-runner; nothing runs unsandboxed instead.`,
    );
    this.entry = entry;
  }
}

/** The sandbox worker stopped (it crashed, or was terminated) while a call was waiting, or before it. */
export class SandboxWorkerStoppedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SandboxWorkerStoppedError";
  }
}
