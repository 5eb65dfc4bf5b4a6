import type { ModelBinding, ModelCallOptions, ModelRequest, ModelRuntime, ModelStreamEvent } from "@castellan/harness";
import { ModelResolutionError } from "../errors/errors.js";

/**
 * A model runtime captured at registration: later replacement of its `stream` method has no
 * effect. The context window is read from the runtime each time, since a binding may learn it
 * late (OpenRouter reads it from its catalog on the first request).
 */
export interface BoundModel {
  readonly specifier: string;
  /** The binding's context window in tokens; undefined when the binding does not know it. */
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
  const specifier = typeof binding.specifier === "string" ? binding.specifier : fallbackSpecifier;
  const stream = runtime.stream.bind(runtime);
  return Object.freeze({
    specifier,
    get contextWindow() {
      const window = binding.contextWindow;
      // Only a positive whole number is a window; anything else is treated as unknown.
      return typeof window === "number" && Number.isInteger(window) && window > 0 ? window : undefined;
    },
    stream,
  });
}
