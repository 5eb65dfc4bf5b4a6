import { z } from "zod";
import { mcpServersSchema, skillsSchema } from "../capabilities/capability-schemas.js";
import { isAllowedUrl } from "../capabilities/url-policy.js";
import type { ExecutorKnobs } from "../config/knobs.js";
import { contextImagesSchema } from "../context/context-images-schema.js";
import { type ExecutorErrorField, ExecutorRequestError } from "../errors/errors.js";
import { jobIdPattern } from "../registry/job-id.js";

/** The job kinds `POST /run` serves. */
export const runKinds = ["coder"] as const;

/** Kinds of the protocol this server does not run. */
const unsupportedKinds: ReadonlySet<string> = new Set(["mocker", "playwright"]);

/** The most bytes of one command the server runs for a job (install, a check, a proof step). */
export const maxCommandBytes = 4_096;

/** Fields of the protocol that are out of this server's scope. */
export const outOfScopeFields: readonly string[] = Object.freeze([
  "generateImages",
  "ambientAuth",
  "infra",
  "repos",
  "secrets",
  "contextDocuments",
]);

/** The guard limits a body may raise (never lower). */
const guardLimitNames = [
  "maxConsecutiveMcpCalls",
  "maxConsecutiveWebCalls",
  "maxConsecutiveNonActionCalls",
  "noEditCallLimit",
] as const;

const maxSystemPromptBytes = 262_144;

/** The schema of a coding job's body: strict at every level, URLs https (or http on loopback). */
export function jobBodySchema(knobs: Pick<ExecutorKnobs, (typeof guardLimitNames)[number]>, allowFileRemotes: boolean) {
  const url = (label: string) =>
    z.string().refine((value) => isAllowedUrl(value, allowFileRemotes), {
      message: `${label} must be an https: URL, or http: to a loopback address${allowFileRemotes ? ", or file:" : ""}, without credentials in it.`,
    });
  const credential = z.string().min(1).max(16_384);
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
      .min(knobs[name], { message: `may only raise the server's limit of ${knobs[name]}.` })
      .max(1_000_000)
      .optional();
  const shape = {
    jobId: z.string().regex(jobIdPattern, {
      message: "must be 1-128 characters of letters, digits, '.', '_' and '-', starting with a letter or digit.",
    }),
    kind: z.enum(runKinds).optional(),
    model: z
      .strictObject({
        provider: z.enum(["openai-compatible", "anthropic", "openrouter", "codex"]),
        baseURL: url("model.baseURL").optional(),
        token: credential,
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
      token: credential.optional(),
    }),
    network: z
      .strictObject({
        allowedDomains: z.array(domain).max(64).optional(),
        deniedDomains: z.array(domain).max(64).optional(),
      })
      .optional(),
    dependencyInstall: z.strictObject({ command }).optional(),
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
    skills: skillsSchema.optional(),
    mcpServers: mcpServersSchema(url("mcpServers[].url")).optional(),
    referenceScreenshots: contextImagesSchema(url("referenceScreenshots.url")).optional(),
    designImages: contextImagesSchema(url("designImages.url")).optional(),
    artifactUpload: z.strictObject({ url: url("artifactUpload.url"), token: credential }).optional(),
    packageRegistries: z
      .array(
        z.strictObject({
          registry: url("packageRegistries[].registry"),
          scope: z
            .string()
            .regex(/^@[a-z0-9][a-z0-9._-]{0,213}$/, { message: "must be an npm scope such as @acme." })
            .optional(),
          token: credential,
        }),
      )
      .max(8)
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
  const proxyRule: [
    (body: { proxyPhasePath?: boolean | undefined; model: { baseURL?: string | undefined } }) => boolean,
    { message: string; path: string[] },
  ] = [
    (body) => body.proxyPhasePath !== true || body.model.baseURL !== undefined,
    { message: "proxyPhasePath needs model.baseURL.", path: ["proxyPhasePath"] },
  ];
  const { kind: _kind, validationChecks: _checks, reproduction: _proof, pullRequest: _pr, ...shared } = shape;
  return {
    /** `POST /run`: the coding job. */
    run: z
      .strictObject(shape)
      .refine(...proxyRule)
      .refine((body) => body.pullRequest === undefined || body.repo.token !== undefined, {
        message: "pullRequest needs repo.token: the host's API is called with it.",
        path: ["repo", "token"],
      }),
    /** `POST /bootstrap`: `repo` is the target; `reference` the architecture to adapt (else an empty tree). */
    bootstrap: z
      .strictObject({
        ...shared,
        reference: z.strictObject({ url: url("reference.url"), branch, token: credential.optional() }).optional(),
      })
      .refine(...proxyRule),
    /** `POST /blueprint`: the repository to decompose into `blueprints/`. */
    blueprint: z.strictObject(shared).refine(...proxyRule),
  };
}

/** The job bodies' schemas, one per route. */
export type JobBodySchemas = ReturnType<typeof jobBodySchema>;

/** A checked job body of any route: the coding job's fields, and bootstrap's `reference`. */
export type JobBody = z.infer<JobBodySchemas["run"]> & Partial<Pick<z.infer<JobBodySchemas["bootstrap"]>, "reference">>;

function pathOf(path: readonly PropertyKey[]): string {
  return (
    path
      .map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
      .join(".")
      .replace(/\.\[/g, "[") || "(body)"
  );
}

/**
 * Checks a parsed body: the protocol's refusals first (an unsupported kind, a field out of
 * this server's scope, an unknown top-level field), then the schema. Messages and `fields`
 * name paths and rules, never a submitted value.
 */
export function parseJobBody(body: unknown, schema: JobBodySchemas[keyof JobBodySchemas]): JobBody {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ExecutorRequestError("executor_invalid_body", "The body must be a JSON object.");
  }
  const record = body as Record<string, unknown>;
  if (typeof record.kind === "string" && unsupportedKinds.has(record.kind)) {
    throw new ExecutorRequestError(
      "executor_unsupported_kind",
      `Kind "${record.kind}" is not served by this executor; it runs ${runKinds.join(", ")}.`,
    );
  }
  const unserved = Object.keys(record).filter((key) => outOfScopeFields.includes(key));
  if (unserved.length > 0) {
    throw new ExecutorRequestError(
      "executor_unsupported_field",
      `This executor does not serve ${unserved.join(", ")}.`,
      unserved.map((path) => ({ path, message: "not served by this executor" })),
    );
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data as JobBody;
  const unknown: ExecutorErrorField[] = [];
  const invalid: ExecutorErrorField[] = [];
  for (const issue of result.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) unknown.push({ path: pathOf([...issue.path, key]), message: "unknown field" });
    } else {
      invalid.push({ path: pathOf(issue.path), message: issue.message });
    }
  }
  if (unknown.length > 0) {
    throw new ExecutorRequestError(
      "executor_unknown_fields",
      `Unknown field${unknown.length > 1 ? "s" : ""}: ${unknown.map((field) => field.path).join(", ")}.`,
      unknown,
    );
  }
  throw new ExecutorRequestError(
    "executor_invalid_body",
    `The body is not a valid job: ${invalid.map((field) => field.path).join(", ")}.`,
    invalid,
  );
}
