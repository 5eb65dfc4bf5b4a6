import { createHash } from "node:crypto";
import {
  type Capability,
  defineCapability,
  defineTool,
  errorMessage,
  type JsonValue,
  reservedStateField,
  type Tool,
  ToolInputError,
  type ToolResult,
} from "@castellan/harness";
import { checkWorkspacePath } from "../workspace-path/check-path.js";
import { maxSkillImageBytes, maxSkillTextBytes, resourceRefused } from "./limits.js";
import { activationsIn, activeSkillsKey, type SessionSkills, type SkillActivation } from "./session-skills.js";

function notAvailable(name: unknown): ToolInputError {
  return new ToolInputError(
    "skill_not_available",
    `No skill ${JSON.stringify(name)} is available now; use a name from the skills listing.`,
  );
}

/** The activation confirmation: short, with the resources the model may read next. */
function confirmation(name: string, resources: readonly string[], already: boolean): string {
  const head = already
    ? `The skill "${name}" is already active; its instructions are in your system prompt.`
    : `Activated the skill "${name}": its instructions are in your system prompt from the next turn.`;
  const list =
    resources.length === 0
      ? "It has no resource files."
      : `Its resources (read_skill_resource): ${resources.join(", ")}.`;
  return `${head} ${list}`;
}

/** Loads and records one activation; the caller checked visibility. */
export async function loadActivation(
  skill: { readonly name: string; readonly binding: { load(options: { signal: AbortSignal }): Promise<string> } },
  where: {
    readonly source: "model" | "host";
    readonly runId: string;
    readonly turn: number;
    readonly signal: AbortSignal;
  },
): Promise<SkillActivation> {
  const text = await skill.binding.load({ signal: where.signal });
  if (typeof text !== "string") throw new TypeError("load() must resolve to the skill's text.");
  return Object.freeze({
    name: skill.name,
    source: where.source,
    runId: where.runId,
    turn: where.turn,
    sha256: createHash("sha256").update(text).digest("hex"),
    text,
  });
}

function activateSkillTool(skills: SessionSkills): Tool<{ name: string }> {
  return defineTool<{ name: string }>({
    name: "activate_skill",
    description:
      "Activate one of the listed skills by name: its instructions join your system prompt from the next turn and stay for the Session. Returns a confirmation with the skill's resource files.",
    inputSchema: {
      type: "object",
      properties: { name: { type: "string", description: "A skill name from the skills listing." } },
      required: ["name"],
      additionalProperties: false,
    },
    readOnly: true,
    enabled: (ctx) => skills.visible(ctx).length > 0,
    async execute(input, ctx): Promise<ToolResult | string> {
      const skill = skills.visibleSkill(input.name, ctx);
      if (!skill) return errorOf(notAvailable(input.name));
      const resources = skill.binding.resources ?? [];
      if (activationsIn(ctx.state).some((activation) => activation.name === skill.name)) {
        return confirmation(skill.name, resources, true);
      }
      let activation: SkillActivation;
      try {
        activation = await loadActivation(skill, {
          source: "model",
          runId: ctx.runId,
          turn: ctx.turn,
          signal: ctx.signal,
        });
      } catch (error) {
        return errorOf(
          new ToolInputError("skill_load_failed", `Loading the skill "${skill.name}" failed: ${errorMessage(error)}`),
        );
      }
      ctx.setState((state): Readonly<Record<string, JsonValue>> => {
        const saved = activationsIn(state);
        if (saved.some((entry) => entry.name === skill.name)) return {};
        return { [activeSkillsKey]: [...saved, activation] as unknown as JsonValue };
      });
      return confirmation(skill.name, resources, false);
    },
  });
}

function readSkillResourceTool(skills: SessionSkills): Tool<{ name: string; path: string }> {
  return defineTool<{ name: string; path: string }>({
    name: "read_skill_resource",
    description:
      "Read one resource file of a listed skill (a path from its resource list): text comes back as text, an image as an image. Reading does not activate the skill.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "A skill name from the skills listing." },
        path: { type: "string", description: "A resource path of that skill, like references/guide.md." },
      },
      required: ["name", "path"],
      additionalProperties: false,
    },
    readOnly: true,
    enabled: (ctx) => skills.visible(ctx).length > 0,
    async execute(input, ctx): Promise<ToolResult> {
      const skill = skills.visibleSkill(input.name, ctx);
      if (!skill) return errorOf(notAvailable(input.name));
      const { path } = input;
      try {
        try {
          checkWorkspacePath(path);
        } catch (error) {
          throw resourceRefused(
            path,
            error instanceof Error ? error.message : "it is not a relative path inside the skill",
          );
        }
        const listed = skill.binding.resources;
        if (listed && !listed.includes(path))
          throw resourceRefused(path, `it is not one of the skill's resources (${listed.join(", ") || "none"})`);
        const block = await skill.binding.readResource(path, { signal: ctx.signal });
        return { content: [checkBlock(path, block)], isError: false };
      } catch (error) {
        if (error instanceof ToolInputError) return errorOf(error);
        return errorOf(resourceRefused(path, errorMessage(error)));
      }
    },
  });
}

/** A resource block within the bounds, or a refusal. */
function checkBlock(path: string, block: unknown): ToolResult["content"][number] {
  const candidate = block as { type?: unknown; text?: unknown; mediaType?: unknown; data?: unknown } | null;
  if (candidate?.type === "text" && typeof candidate.text === "string") {
    if (Buffer.byteLength(candidate.text, "utf8") > maxSkillTextBytes)
      throw resourceRefused(path, "text resources are at most 256 KiB");
    return { type: "text", text: candidate.text };
  }
  if (
    candidate?.type === "image" &&
    typeof candidate.data === "string" &&
    ["image/png", "image/jpeg", "image/gif", "image/webp"].includes(String(candidate.mediaType))
  ) {
    if (Buffer.byteLength(candidate.data, "base64") > maxSkillImageBytes)
      throw resourceRefused(path, "images are at most 2 MiB");
    return { type: "image", mediaType: candidate.mediaType as "image/png", data: candidate.data };
  }
  throw resourceRefused(path, "the skill returned neither text nor a PNG, JPEG, GIF or WebP image");
}

function errorOf(error: ToolInputError): ToolResult {
  return { content: [{ type: "text", text: error.resultText }], isError: true };
}

/**
 * The internal capability a Program with skills gets: the `skills` listing (one line per
 * visible skill), `activate_skill` and `read_skill_resource` (both read-only, shown while any
 * skill is visible), and the reserved state key of the activations.
 */
export function skillsRuntimeCapability(skills: SessionSkills): Capability {
  return defineCapability({
    name: "castellan.skills",
    tools: [activateSkillTool(skills), readSkillResourceTool(skills)],
    instructions: [
      {
        name: "skills",
        placement: "system",
        text: (ctx) =>
          skills
            .visible(ctx)
            .map((skill) => `- ${skill.name}: ${skill.binding.description}`)
            .join("\n"),
      },
    ],
    [reservedStateField]: { [activeSkillsKey]: [] },
  });
}
