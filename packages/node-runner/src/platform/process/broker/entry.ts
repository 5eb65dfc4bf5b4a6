import { join } from "node:path";
import { packageDirectory } from "../package-directory.js";

/**
 * The fixed compiled entry of the spawn broker, `dist/platform/process/broker/broker.js` of
 * this package: the same file whether the host runs the compiled package or its source.
 */
export function spawnBrokerEntry(): string {
  return join(packageDirectory(), "dist", "platform", "process", "broker", "broker.js");
}
