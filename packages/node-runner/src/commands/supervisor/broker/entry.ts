import { join } from "node:path";
import { packageDirectory } from "../../../sandbox-worker/entry.js";

/**
 * The fixed compiled entry of the spawn broker, `dist/commands/supervisor/broker/broker.js` of
 * this package: the same file whether the host runs the compiled package or its source.
 */
export function spawnBrokerEntry(): string {
  return join(packageDirectory(), "dist", "commands", "supervisor", "broker", "broker.js");
}
