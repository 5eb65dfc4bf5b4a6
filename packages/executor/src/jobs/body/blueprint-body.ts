import { z } from "zod";
import { type BodySchemaSettings, bodyFields } from "./body-fields.js";

/** The body of `POST /blueprint`: the shared fields; `repo` is the repository to decompose into `blueprints/`. */
export function blueprintBodySchema(settings: BodySchemaSettings) {
  const { shared, proxyRule } = bodyFields(settings);
  return z.strictObject(shared).refine(...proxyRule);
}

/** A checked blueprint job body. */
export type BlueprintBody = z.infer<ReturnType<typeof blueprintBodySchema>>;
