import { type Capability, defineAgent, type JsonValue, type ModelRequest, textOf } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { createNodeRunner, type NodeRunner, type PermissionPreset } from "@castellan/node-runner";

/** A tool call step. */
export function call(name: string, input: JsonValue): ScriptedStepSource {
  return { toolCalls: [{ name, input }] };
}

/** The tool results the latest request carries, oldest first. */
export function toolResults(request: ModelRequest | undefined) {
  return (request?.messages ?? []).filter((message) => message.role === "tool");
}

/** The text of the last tool result `request` carries. */
export function lastToolText(request: ModelRequest | undefined): string {
  const last = toolResults(request).at(-1);
  return last ? textOf(last.content) : "";
}

/** A Runner whose Agent declares `capability`, on a scripted model. */
export async function capabilityRunner(
  capability: Capability,
  steps: readonly ScriptedStepSource[],
  permissions: PermissionPreset = "full-access",
): Promise<{ runner: NodeRunner; model: ReturnType<typeof scriptedModel> }> {
  const model = scriptedModel(steps);
  const runner = await createNodeRunner({
    agent: defineAgent("test.browser-capability", { model, capabilities: [capability] }),
    permissions,
  });
  return { runner, model };
}

/** Runs one Run to its end. */
export async function runToEnd(session: { run(input: string): AsyncIterable<unknown> & { result: Promise<unknown> } }) {
  const run = session.run("go");
  for await (const _ of run) {
    // drained
  }
  return run.result;
}
