import type { TurnContext } from "./context.js";

/** Whether the model sees a tool, a host tool reference or a capability this turn. */
export type Enabled = boolean | ((ctx: TurnContext) => boolean);

export function isEnabledOption(value: unknown): value is Enabled | undefined {
  return value === undefined || typeof value === "boolean" || typeof value === "function";
}
