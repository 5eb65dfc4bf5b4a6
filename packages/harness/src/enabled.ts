import type { StateShape, StateView, TurnContext } from "./context.js";

/**
 * Whether the model sees a tool, a host tool reference or a capability this turn. (Written as a
 * method so a tool typed for an agent's state is still a tool of any agent.)
 */
export type Enabled<State extends StateShape = StateView> =
  | boolean
  | { bivariant(ctx: TurnContext<State>): boolean }["bivariant"];

export function isEnabledOption(value: unknown): value is Enabled | undefined {
  return value === undefined || typeof value === "boolean" || typeof value === "function";
}
