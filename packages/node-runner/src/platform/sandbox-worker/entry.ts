import { join } from "node:path";
import { packageDirectory } from "../process/package-directory.js";

/**
 * The fixed compiled entry of the sandbox worker, `dist/platform/sandbox-worker/worker.js` of this
 * package: the same file whether the host runs the compiled package or its TypeScript source,
 * so a worker never needs a TypeScript loader.
 */
export function sandboxWorkerEntry(): string {
  return join(packageDirectory(), "dist", "platform", "sandbox-worker", "worker.js");
}
