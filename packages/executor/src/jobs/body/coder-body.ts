import { z } from "zod";
import { type BodySchemaSettings, bodyFields } from "./body-fields.js";

/** The job kinds `POST /run` serves (its body's optional `kind`). */
export const runKinds = ["coder"] as const;

/**
 * The body of `POST /run`, the coding job: the shared fields, `kind`, `validationChecks` (1-10
 * named commands, 0-5 repair passes, default 2), `reproduction` (up to 5 setup commands and a
 * check, 0-5 repair passes, default 2) and `pullRequest` (GitHub; needs `repo.token`).
 */
export function coderBodySchema(settings: BodySchemaSettings) {
  const { url, command, repairPasses, shared, proxyRule } = bodyFields(settings);
  return z
    .strictObject({
      ...shared,
      kind: z.enum(runKinds).optional(),
      validationChecks: z
        .strictObject({
          commands: z
            .array(z.strictObject({ name: z.string().min(1).max(128), command }))
            .min(1)
            .max(10),
          maxRepairPasses: repairPasses,
        })
        .optional(),
      reproduction: z
        .strictObject({
          setup: z.array(command).max(5).optional(),
          check: command,
          maxRepairPasses: repairPasses,
        })
        .optional(),
      pullRequest: z
        .strictObject({
          host: z.literal("github"),
          repository: z.string().regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, {
            message: "must be owner/name.",
          }),
          apiURL: url("pullRequest.apiURL").optional(),
          title: z.string().min(1).max(256),
          description: z.string().max(60_000),
          draft: z.boolean().optional(),
        })
        .optional(),
    })
    .refine(...proxyRule)
    .refine((body) => body.pullRequest === undefined || body.repo.token !== undefined, {
      message: "pullRequest needs repo.token: the host's API is called with it.",
      path: ["repo", "token"],
    });
}

/** A checked coding job body. */
export type CoderBody = z.infer<ReturnType<typeof coderBodySchema>>;
