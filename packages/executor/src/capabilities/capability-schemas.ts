import { skillNamePattern } from "@castellan/harness";
import {
  isNeverPassed,
  maxSkillFileBytes,
  maxSkillImageBytes,
  maxSkillTextBytes,
  parseSkillFile,
  SkillInvalidError,
} from "@castellan/node-runner";
import { z } from "zod";
import { credentialEntries } from "../registry/credential-fields.js";
import { isAllowedUrl } from "./url-policy.js";

/** Most skills one job body carries. */
export const maxJobSkills = 16;
/** Largest SKILL.md text of a body skill, in UTF-8 bytes: the runner's own SKILL.md bound, so a body it would refuse at open is refused here. */
export const maxJobSkillContentBytes = maxSkillFileBytes;
/** Most resource files one body skill carries. */
export const maxJobSkillResources = 64;
/** Longest resource path, in characters. */
export const maxJobSkillResourcePathLength = 512;
/** Largest `utf8` resource, in bytes: the most `read_skill_resource` returns as text. */
export const maxJobSkillTextResourceBytes = maxSkillTextBytes;
/** Largest decoded `base64` resource, in bytes: the most `read_skill_resource` returns as an image. */
export const maxJobSkillBinaryResourceBytes = maxSkillImageBytes;
/** Bytes of one skill in all (its SKILL.md and its resources, decoded). */
export const maxJobSkillBytes = 4 * 1_048_576;

/** Most tool servers one job body carries. */
export const maxJobMcpServers = 8;
/** Most names one server's `allowedTools` lists. */
export const maxJobMcpAllowedTools = 64;
/** Most `env` (stdio) or `headers` (http) entries of one server. */
export const maxJobMcpEntries = 64;
/** Longest `env` or `headers` value, in characters. */
export const maxJobMcpValueLength = 16_384;

const serverNamePattern = /^[A-Za-z0-9_-]{1,32}$/;
const toolNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;
const variableNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
// RFC 9110 field-name token characters.
const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const loneSurrogate = /\p{Cs}/u;

/** Headers the Streamable HTTP transport sets itself; a body may not replace them. */
const transportHeaders: ReadonlySet<string> = new Set([
  "accept",
  "connection",
  "content-length",
  "content-type",
  "host",
  "last-event-id",
  "mcp-protocol-version",
  "mcp-session-id",
  "transfer-encoding",
]);

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f)) return true;
  }
  return false;
}

/**
 * True for a resource path by the workspace path rules: relative POSIX names joined by single
 * `/`, no `.` or `..` segment, no empty segment, no backslash, NUL or other control character,
 * no lone surrogate, each name at most 255 bytes, and never the skill's own `SKILL.md`.
 */
export function isSkillResourcePath(path: string): boolean {
  if (path === "" || path.length > maxJobSkillResourcePathLength || path === "SKILL.md") return false;
  if (path.startsWith("/") || path.includes("\\") || hasControlCharacter(path) || loneSurrogate.test(path)) {
    return false;
  }
  return path
    .split("/")
    .every((segment) => segment !== "" && segment !== "." && segment !== ".." && Buffer.byteLength(segment) <= 255);
}

/** True for an `https:` URL, or an `http:` one on loopback, without credentials in it (never `file:`). */
export function isToolServerUrl(value: string): boolean {
  return isAllowedUrl(value, false);
}

/** The decoded size of a resource's content. */
export function resourceBytes(resource: { readonly content: string; readonly encoding: "utf8" | "base64" }): number {
  return resource.encoding === "utf8"
    ? Buffer.byteLength(resource.content, "utf8")
    : Buffer.from(resource.content, "base64").length;
}

const resourceSchema = z
  .strictObject({
    path: z.string().refine(isSkillResourcePath, {
      message: `must be a relative path of at most ${maxJobSkillResourcePathLength} characters with "/" between names: no leading "/", no "." or ".." or empty name, no backslash or control character, and not SKILL.md.`,
    }),
    // A cheap bound before any decoding: a character is at least one byte, base64 four for three.
    content: z.string().max(Math.ceil(maxJobSkillBinaryResourceBytes / 3) * 4, { message: "is too large." }),
    encoding: z.enum(["utf8", "base64"]),
  })
  .superRefine((resource, ctx) => {
    if (resource.encoding === "base64") {
      if (!base64Pattern.test(resource.content)) {
        ctx.addIssue({ code: "custom", path: ["content"], message: "must be standard padded base64." });
      } else if (resourceBytes(resource) > maxJobSkillBinaryResourceBytes) {
        ctx.addIssue({
          code: "custom",
          path: ["content"],
          message: `must decode to at most ${maxJobSkillBinaryResourceBytes} bytes.`,
        });
      }
    } else if (resourceBytes(resource) > maxJobSkillTextResourceBytes) {
      ctx.addIssue({
        code: "custom",
        path: ["content"],
        message: `must be at most ${maxJobSkillTextResourceBytes} bytes of UTF-8.`,
      });
    }
  });

const skillSchema = z
  .strictObject({
    name: z.string().min(1).max(64).regex(skillNamePattern, {
      message: 'must be 1-64 lowercase letters and digits in "-"-separated words.',
    }),
    content: z.string().refine((value) => Buffer.byteLength(value, "utf8") <= maxJobSkillContentBytes, {
      message: `must be at most ${maxJobSkillContentBytes} bytes.`,
    }),
    resources: z.array(resourceSchema).max(maxJobSkillResources).optional(),
  })
  .superRefine((skill, ctx) => {
    // The SKILL.md is checked as the runner will read it, so a body it would refuse at open fails here.
    try {
      parseSkillFile(Buffer.from(skill.content, "utf8"), "SKILL.md", skill.name);
    } catch (error) {
      if (!(error instanceof SkillInvalidError)) throw error;
      ctx.addIssue({
        code: "custom",
        path: ["content"],
        message: `must be a SKILL.md: YAML front matter between "---" lines whose name is the skill's name and whose description is 1-1,024 characters (${error.field} is not).`,
      });
    }
    const resources = skill.resources ?? [];
    const paths = new Set<string>();
    resources.forEach((resource, index) => {
      if (paths.has(resource.path)) {
        ctx.addIssue({ code: "custom", path: ["resources", index, "path"], message: "repeats an earlier path." });
      }
      paths.add(resource.path);
    });
    resources.forEach((resource, index) => {
      const segments = resource.path.split("/");
      for (let depth = 1; depth < segments.length; depth++) {
        if (paths.has(segments.slice(0, depth).join("/"))) {
          ctx.addIssue({
            code: "custom",
            path: ["resources", index, "path"],
            message: "lies under another resource's path, which is a file.",
          });
          break;
        }
      }
    });
    const total =
      Buffer.byteLength(skill.content, "utf8") + resources.reduce((sum, resource) => sum + resourceBytes(resource), 0);
    if (total > maxJobSkillBytes) {
      ctx.addIssue({
        code: "custom",
        path: ["resources"],
        message: `the skill and its resources must be at most ${maxJobSkillBytes} bytes in all.`,
      });
    }
  });

/**
 * A job body's `skills`: at most 16, names unique. Each is a SKILL.md (`content`, at most
 * 128 KiB, front matter naming the skill) and at most 64 resource files, each at a relative
 * path by the workspace rules (never `SKILL.md` itself), `utf8` text of at most 256 KiB or
 * `base64` of at most 2 MiB decoded; a skill is at most 4 MiB in all.
 */
export const skillsSchema = z
  .array(skillSchema)
  .max(maxJobSkills)
  .superRefine((skills, ctx) => {
    const seen = new Set<string>();
    skills.forEach((skill, index) => {
      if (seen.has(skill.name))
        ctx.addIssue({ code: "custom", path: [index, "name"], message: "repeats an earlier skill's name." });
      seen.add(skill.name);
    });
  });

/** A checked body skill. */
export type JobSkill = z.infer<typeof skillSchema>;

const serverName = z.string().regex(serverNamePattern, {
  message: 'must be 1-32 letters, digits, "_" or "-".',
});
const allowedTools = z
  .array(
    z.string().regex(toolNamePattern, {
      message: 'must be one tool name: 1-64 letters, digits, "_", "." or "-".',
    }),
  )
  .min(1, { message: "must name at least one tool; omit it for the server's whole catalog." })
  .max(maxJobMcpAllowedTools)
  .optional();
const secretKeys = z.array(z.string().min(1).max(256)).max(maxJobMcpEntries).optional();
const value = z
  .string()
  .max(maxJobMcpValueLength)
  .refine((text) => !text.includes("\u0000"), { message: "must not contain NUL." });
const limitedEntries = <Schema extends z.ZodType>(schema: Schema) =>
  schema.refine((entries) => Object.keys(entries as object).length <= maxJobMcpEntries, {
    message: `must have at most ${maxJobMcpEntries} entries.`,
  });

/** Checks `secretKeys` and `allowedTools` of one server against its `env` or `headers`. */
function checkServer(
  server: {
    readonly secretKeys?: readonly string[] | undefined;
    readonly allowedTools?: readonly string[] | undefined;
  },
  entries: Readonly<Record<string, string>>,
  field: "env" | "headers",
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  (server.secretKeys ?? []).forEach((key, index) => {
    const path = ["secretKeys", index];
    if (seen.has(key)) ctx.addIssue({ code: "custom", path, message: "repeats an earlier key." });
    seen.add(key);
    const entry = Object.hasOwn(entries, key) ? entries[key] : undefined;
    if (entry === undefined) {
      ctx.addIssue({ code: "custom", path, message: `must name a key of this server's ${field}.` });
    }
    // A value of any length is accepted: the job's redactor replaces even a one-character secret.
  });
  const tools = new Set<string>();
  (server.allowedTools ?? []).forEach((tool, index) => {
    if (tools.has(tool))
      ctx.addIssue({ code: "custom", path: ["allowedTools", index], message: "repeats an earlier tool." });
    tools.add(tool);
  });
}

/**
 * A job body's `mcpServers`: at most 8 tool servers, names unique, each `stdio` (a program
 * Castellan spawns, with its own `env`) or `http` (Streamable HTTP at `url`, which must pass the
 * caller's `url` rule and be `https:`, or `http:` on loopback, with its own `headers`).
 * `secretKeys` names the `env` / `headers` entries that are credentials (each value at least
 * 8 characters); `allowedTools` narrows the server to those tools, each one tool name.
 */
export function mcpServersSchema(url: z.ZodType<string, string>) {
  const stdio = z
    .strictObject({
      name: serverName,
      transport: z.literal("stdio"),
      command: z
        .string()
        .min(1)
        .max(4_096)
        .refine((command) => !command.includes("\u0000") && (command.startsWith("/") || !command.includes("/")), {
          message: "must be a program name (found in PATH) or an absolute path.",
        }),
      args: z.array(value.max(4_096)).max(64).optional(),
      env: limitedEntries(
        z.record(
          z
            .string()
            .max(128)
            .regex(variableNamePattern, { message: "must be an environment variable name." })
            .refine((name) => !isNeverPassed(name), {
              message: "is a name no server is given (CASTELLAN_, ANTHROPIC_, OPENAI_, OPENROUTER_, CODEX_).",
            }),
          value,
        ),
      ).optional(),
      secretKeys,
      allowedTools,
    })
    .superRefine((server, ctx) => checkServer(server, server.env ?? {}, "env", ctx));
  credentialEntries(stdio);
  const http = z
    .strictObject({
      name: serverName,
      transport: z.literal("http"),
      url: url.refine(isToolServerUrl, {
        message: "must be an https: URL, or http: to a loopback address, without credentials in it.",
      }),
      headers: limitedEntries(
        z.record(
          z
            .string()
            .max(128)
            .regex(headerNamePattern, { message: "must be an HTTP header name." })
            .refine((name) => !transportHeaders.has(name.toLowerCase()), {
              message: "is a header the transport sets itself.",
            }),
          value.refine((text) => !/[\r\n]/.test(text), { message: "must not contain a line break." }),
        ),
      )
        .superRefine((headers, ctx) => {
          const seen = new Set<string>();
          for (const name of Object.keys(headers)) {
            const lower = name.toLowerCase();
            if (seen.has(lower))
              ctx.addIssue({ code: "custom", path: [name], message: "repeats an earlier header in another case." });
            seen.add(lower);
          }
        })
        .optional(),
      secretKeys,
      allowedTools,
    })
    .superRefine((server, ctx) => checkServer(server, server.headers ?? {}, "headers", ctx));
  credentialEntries(http);
  return z
    .array(z.discriminatedUnion("transport", [stdio, http]))
    .max(maxJobMcpServers)
    .superRefine((servers, ctx) => {
      const seen = new Set<string>();
      servers.forEach((server, index) => {
        if (seen.has(server.name))
          ctx.addIssue({ code: "custom", path: [index, "name"], message: "repeats an earlier server's name." });
        seen.add(server.name);
      });
    });
}

/** A checked body tool server. */
export type JobMcpServer = z.infer<ReturnType<typeof mcpServersSchema>>[number];
