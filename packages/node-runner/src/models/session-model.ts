import type { Agent, ModelRuntime } from "@castellan/harness";
import { ModelResolutionError } from "../errors.js";
import type { Registry } from "../plugins/registry.js";
import { type BoundModel, bindModel } from "./bound-model.js";

/** How a Session gets its model for each model call. */
export interface SessionModel {
  /** The declared name, or the binding's specifier. */
  readonly name: string;
  resolve(request: {
    readonly sessionId: string;
    readonly runId: string;
    readonly signal: AbortSignal;
  }): Promise<BoundModel>;
}

/**
 * Applies the model resolution rules when a Session opens: a declared binding is used as is,
 * unless a registered model has the same name (ambiguous); a declared name needs a registered
 * model, or a resolver that resolves it per request. There is no default model.
 */
export function resolveSessionModel(agent: Agent, registry: Registry): SessionModel {
  const declared = agent.model;
  if (typeof declared !== "string") {
    if (registry.models.has(declared.specifier)) {
      throw new ModelResolutionError(
        "model_ambiguous",
        `Agent "${agent.id}" declares model "${declared.specifier}" directly and a plugin registers a model of the same name; keep one.`,
      );
    }
    const bound = bindModel(declared, declared.specifier);
    return { name: declared.specifier, resolve: async () => bound };
  }
  const resolver = registry.modelResolver;
  if (resolver) {
    return {
      name: declared,
      async resolve({ sessionId, runId, signal }) {
        let runtime: unknown;
        try {
          runtime = await resolver.resolve({ name: declared, sessionId, runId, signal });
        } catch (error) {
          throw new ModelResolutionError(
            "model_resolution_failed",
            `The model resolver failed for "${declared}": ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }
        if (runtime === null || typeof runtime !== "object" || typeof (runtime as ModelRuntime).stream !== "function") {
          throw new ModelResolutionError(
            "model_resolution_failed",
            `The model resolver's answer for "${declared}" is not a model runtime (it needs a stream method).`,
          );
        }
        return bindModel(runtime as ModelRuntime, declared);
      },
    };
  }
  const registered = registry.models.get(declared);
  if (!registered) {
    const known = [...registry.models.keys()];
    throw new ModelResolutionError(
      "model_not_found",
      `Agent "${agent.id}" declares model "${declared}", but no plugin registers it${
        known.length ? ` (registered: ${known.join(", ")})` : ""
      }. Register it with host.registerModel("${declared}", runtime).`,
    );
  }
  return { name: declared, resolve: async () => registered };
}
