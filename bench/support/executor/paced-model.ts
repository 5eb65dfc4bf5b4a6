// The model of one bench job: each call waits `turnMs` (abortably), then answers the next
// scripted step. The steps alternate a sandboxed `true` and an edit of README.md, then a final
// text: `turns` tool turns in all.
import type { ModelBinding, ModelStreamEvent } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";

/** The steps of a job: `turns` tool calls alternating a command and an edit, then the answer. */
export function benchSteps(turns: number): ScriptedStepSource[] {
  const steps: ScriptedStepSource[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const edit = Math.floor(turn / 2);
    steps.push(
      turn % 2 === 0
        ? { toolCalls: [{ name: "exec_command", input: { command: "true" } }] }
        : {
            toolCalls: [
              {
                name: "edit_workspace_file",
                input: {
                  path: "README.md",
                  expected: edit === 0 ? "# app" : `# app ${edit}`,
                  replacement: `# app ${edit + 1}`,
                },
              },
            ],
          },
    );
  }
  steps.push({ text: "Done." });
  return steps;
}

/** A model whose every call takes `turnMs` before the scripted answer streams. */
export function pacedModel(turns: number, turnMs: number): ModelBinding {
  const inner = scriptedModel(benchSteps(turns));
  return {
    specifier: "bench/paced",
    async *stream(request, options): AsyncGenerator<ModelStreamEvent> {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, turnMs);
        options.signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
      yield* inner.stream(request, options);
    },
  };
}
