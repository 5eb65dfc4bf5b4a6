import { z } from "zod";
import { mcpServersSchema, skillsSchema } from "../../capabilities/capability-schemas.js";
import { isAllowedUrl } from "../../capabilities/url-policy.js";
import type { ExecutorKnobs } from "../../config/knobs.js";
import { contextImagesSchema } from "../../context/context-images-schema.js";
import { credentialValue } from "../../registry/credential-fields.js";
import { jobIdPattern } from "../../registry/job-id.js";

/** The most bytes of one command the server runs for a job (install, a check, a proof step). */
export const maxCommandBytes = 4_096;

/** The most bytes of a body's `systemPrompt`. */
export const maxSystemPromptBytes = 262_144;

/** The guard limits a body may raise (never lower). */
export const guardLimitNames = [
  "maxConsecutiveMcpCalls",
  "maxConsecutiveWebCalls",
  "maxConsecutiveNonActionCalls",
  "noEditCallLimit",
] as const;

/** What a kind's body schema is built from: the server's guard limits (a body may only raise them) and its URL rule. */
export type BodySchemaSettings = Pick<ExecutorKnobs, (typeof guardLimitNames)[number]> & {
  /** Whether `file:` remotes are accepted (tests against local bare repositories). */
  readonly allowFileRemotes: boolean;
};

/**
 * The field schemas every kind's body is made of, strict at every level: URLs `https:` (or
 * `http:` on loopback, or `file:` where allowed) without credentials in them; every credential
 * marked with `credentialValue`, so the registry finds it in the schema.
 */
export function bodyFields(settings: BodySchemaSettings) {
  const { allowFileRemotes } = settings;
  const url = (label: string) =>
    z.string().refine((value) => isAllowedUrl(value, allowFileRemotes), {
      message: `${label} must be an https: URL, or http: to a loopback address${allowFileRemotes ? ", or file:" : ""}, without credentials in it.`,
    });
  const credential = () => credentialValue(z.string().min(1).max(16_384));
  const branch = z
    .string()
    .min(1)
    .max(255)
    .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/-]+(?<!\.lock)(?<![/.])$/, {
      message: "must be a git branch name of letters, digits, '.', '_', '-' and '/'.",
    });
  const domain = z
    .string()
    .min(1)
    .max(253)
    .regex(/^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/, {
      message: "must be a domain name or a *.domain pattern.",
    });
  const command = z
    .string()
    .min(1)
    .refine((value) => Buffer.byteLength(value, "utf8") <= maxCommandBytes, {
      message: `must be at most ${maxCommandBytes} bytes.`,
    });
  const repairPasses = z.number().int().min(0).max(5).default(2);
  const raising = (name: (typeof guardLimitNames)[number]) =>
    z
      .number()
      .int()
      .min(settings[name], { message: `may only raise the server's limit of ${settings[name]}.` })
      .max(1_000_000)
      .optional();
  /** The fields of every kind's body. */
  const shared = {
    jobId: z.string().regex(jobIdPattern, {
      message: "must be 1-128 characters of letters, digits, '.', '_' and '-', starting with a letter or digit.",
    }),
    model: z
      .strictObject({
        provider: z.enum(["openai-compatible", "anthropic", "openrouter", "codex"]),
        baseURL: url("model.baseURL").optional(),
        token: credential(),
        id: z.string().min(1).max(256),
      })
      .refine((model) => model.provider !== "openai-compatible" || model.baseURL !== undefined, {
        message: "baseURL is required for provider openai-compatible.",
        path: ["baseURL"],
      }),
    proxyPhasePath: z.boolean().optional(),
    systemPrompt: z.string().refine((value) => Buffer.byteLength(value, "utf8") <= maxSystemPromptBytes, {
      message: `must be at most ${maxSystemPromptBytes} bytes.`,
    }),
    repo: z.strictObject({
      url: url("repo.url"),
      baseBranch: branch,
      workBranch: branch.optional(),
      token: credential().optional(),
    }),
    network: z
      .strictObject({
        allowedDomains: z.array(domain).max(64).optional(),
        deniedDomains: z.array(domain).max(64).optional(),
      })
      .optional(),
    dependencyInstall: z.strictObject({ command }).optional(),
    skills: skillsSchema.optional(),
    mcpServers: mcpServersSchema(url("mcpServers[].url")).optional(),
    referenceScreenshots: contextImagesSchema(url("referenceScreenshots.url"), credential()).optional(),
    designImages: contextImagesSchema(url("designImages.url"), credential()).optional(),
    artifactUpload: z.strictObject({ url: url("artifactUpload.url"), token: credential() }).optional(),
    packageRegistries: z
      .array(
        z.strictObject({
          registry: url("packageRegistries[].registry"),
          scope: z
            .string()
            .regex(/^@[a-z0-9][a-z0-9._-]{0,213}$/, { message: "must be an npm scope such as @acme." })
            .optional(),
          token: credential(),
        }),
      )
      .max(8)
      .optional(),
    tuning: z
      .strictObject({
        guardLimits: z
          .strictObject(
            Object.fromEntries(guardLimitNames.map((name) => [name, raising(name)])) as {
              [Name in (typeof guardLimitNames)[number]]: ReturnType<typeof raising>;
            },
          )
          .optional(),
      })
      .optional(),
  };
  /** `proxyPhasePath` sends the phase in the model's URL path, so it needs one. */
  const proxyRule: [
    (body: { proxyPhasePath?: boolean | undefined; model: { baseURL?: string | undefined } }) => boolean,
    { message: string; path: string[] },
  ] = [
    (body) => body.proxyPhasePath !== true || body.model.baseURL !== undefined,
    { message: "proxyPhasePath needs model.baseURL.", path: ["proxyPhasePath"] },
  ];
  return { url, credential, branch, command, repairPasses, shared, proxyRule };
}

/** The fields every kind's body has, checked. */
export type SharedBody = z.infer<z.ZodObject<ReturnType<typeof bodyFields>["shared"]>>;
