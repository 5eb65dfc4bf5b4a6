import { defineTool, type StateUpdate } from "@castellan/harness";
import type { Latch } from "./latch.ts";

/** The tool "write_and_wait": writes `update` to state, resolves `started`, then waits for the Run's abort and answers "stopped". */
export function writeAndWaitTool(update: StateUpdate, started: Latch) {
  return defineTool({
    name: "write_and_wait",
    description: "Writes count, then waits for the abort",
    execute: async (_input, ctx) => {
      ctx.setState(update);
      started.resolve();
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
      return "stopped";
    },
  });
}
