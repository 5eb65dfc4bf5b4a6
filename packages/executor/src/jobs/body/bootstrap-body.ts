import { z } from "zod";
import { type BodySchemaSettings, bodyFields } from "./body-fields.js";

/**
 * The body of `POST /bootstrap`: the shared fields, where `repo` is the target whose base
 * branch gets the new history, and `reference` the architecture to adapt (else an empty tree).
 */
export function bootstrapBodySchema(settings: BodySchemaSettings) {
  const { url, credential, branch, shared, proxyRule } = bodyFields(settings);
  return z
    .strictObject({
      ...shared,
      reference: z.strictObject({ url: url("reference.url"), branch, token: credential().optional() }).optional(),
    })
    .refine(...proxyRule);
}

/** A checked bootstrap job body. */
export type BootstrapBody = z.infer<ReturnType<typeof bootstrapBodySchema>>;
