import type { ModelBinding, ModelCallOptions, ModelRequest, ModelRuntime, ModelStreamEvent } from "@castellan/harness";
import { ModelResolutionError } from "../errors.js";

/** A model runtime captured at registration: later changes to the passed object have no effect. */
export interface BoundModel {
  readonly specifier: string;
  readonly contextWindow: number | undefined;
  stream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamEvent>;
}

export function assertModelRuntime(runtime: unknown, where: string): asserts runtime is ModelRuntime {
  if (runtime === null || typeof runtime !== "object" || typeof (runtime as ModelRuntime).stream !== "function") {
    throw new ModelResolutionError(
      "model_registration",
      `${where}: a model runtime needs a stream(request, options) method.`,
    );
  }
}

/** Captures a runtime's stream method and identity. */
export function bindModel(runtime: ModelRuntime | ModelBinding, fallbackSpecifier: string): BoundModel {
  const binding = runtime as Partial<ModelBinding>;
  return Object.freeze({
    specifier: typeof binding.specifier === "string" ? binding.specifier : fallbackSpecifier,
    contextWindow: typeof binding.contextWindow === "number" ? binding.contextWindow : undefined,
    stream: runtime.stream.bind(runtime),
  });
}
