import type { Agent, ModelBinding, ModelRuntime } from "@castellan/harness";
import { errorMessage, isModelRuntime } from "@castellan/harness";
import { InvalidOptionsError, ModelResolutionError } from "../errors/errors.js";
import { type BoundModel, bindModel } from "../models/bound-model.js";
import type { Registry } from "../plugins/registry.js";

/** How a Session (or one Run, or compaction) gets its model for each model call. */
export interface SessionModel {
  /** The requested name, or the binding's specifier. */
  readonly name: string;
  /** The model, where it is known without a request: a binding or a registered runtime. Undefined for a resolver. */
  readonly known: BoundModel | undefined;
  resolve(request: {
    readonly sessionId: string;
    readonly runId: string;
    readonly signal: AbortSignal;
  }): Promise<BoundModel>;
}

/** What a model may be given as: a registered name, or a binding. */
export type ModelReference = string | ModelBinding;

/**
 * Applies the model resolution rules when a Session opens: a declared binding is used as is,
 * unless a registered model has the same name (ambiguous); a declared name follows
 * `selectModel`. There is no default model.
 */
export function resolveSessionModel(agent: Agent, registry: Registry): SessionModel {
  const declared = agent.model;
  if (typeof declared !== "string" && registry.models.has(declared.specifier)) {
    throw new ModelResolutionError(
      "model_ambiguous",
      `Agent "${agent.id}" declares model "${declared.specifier}" directly and a plugin registers a model of the same name; keep one.`,
    );
  }
  return selectModel(declared, registry, `Agent "${agent.id}" declares model`);
}

/**
 * Resolves a model reference with the Runner's rules, the same for the declaration, a Run's
 * `model` option and `contextBudget.model`: a binding is used as is; a name needs a registered
 * model, or the Runner's resolver, which is asked for that name per request. An unknown name
 * throws `model_not_found`; nothing ever falls back to another model.
 *
 * @param where how the error names the reference, e.g. `The Run's model option`.
 */
export function selectModel(reference: unknown, registry: Registry, where: string): SessionModel {
  if (typeof reference !== "string") {
    if (!isModelRuntime(reference) || typeof (reference as Partial<ModelBinding>).specifier !== "string") {
      throw new InvalidOptionsError(
        `${where}: a model must be a registered name or a binding ({ specifier, stream }); got ${describeValue(reference)}.`,
      );
    }
    const binding = reference as ModelBinding;
    const bound = bindModel(binding, binding.specifier);
    return { name: binding.specifier, known: bound, resolve: async () => bound };
  }
  if (reference.length === 0) throw new InvalidOptionsError(`${where}: a model name must not be empty.`);
  const resolver = registry.modelResolver;
  if (resolver) {
    return {
      name: reference,
      known: undefined,
      async resolve({ sessionId, runId, signal }) {
        let runtime: unknown;
        try {
          runtime = await resolver.resolve({ name: reference, sessionId, runId, signal });
        } catch (error) {
          throw new ModelResolutionError(
            "model_resolution_failed",
            `The model resolver failed for "${reference}": ${errorMessage(error)}`,
            { cause: error },
          );
        }
        if (!isModelRuntime(runtime)) {
          throw new ModelResolutionError(
            "model_resolution_failed",
            `The model resolver's answer for "${reference}" is not a model runtime (it needs a stream method).`,
          );
        }
        return bindModel(runtime as ModelRuntime, reference);
      },
    };
  }
  const registered = registry.models.get(reference);
  if (!registered) {
    const known = [...registry.models.keys()];
    throw new ModelResolutionError(
      "model_not_found",
      `${where} "${reference}", but no plugin registers it${
        known.length ? ` (registered: ${known.join(", ")})` : ""
      }. Register it with host.registerModel("${reference}", runtime).`,
    );
  }
  return { name: reference, known: registered, resolve: async () => registered };
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return "an object without a stream method and a specifier";
  return typeof value;
}
