import { it } from "vitest";
import type { ScenarioName } from "../scenarios.ts";

/** One scenario of the list (scenarios.ts), titled by its name, for the driver of the enclosing describe. */
export function scenario(name: ScenarioName, body: () => Promise<void>, timeout?: number): void {
  it(name, body, timeout);
}
