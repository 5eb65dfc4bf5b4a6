import type { ImageBlock, TextBlock } from "./content.js";
import { DeclarationError } from "./errors.js";

/** A skill's name: 1-64 lowercase letters and digits in `-`-separated words. */
export const skillNamePattern = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * A skill bound directly in a declaration: its metadata now, its body and resources only when
 * used. The Runner calls `load` only when the skill is activated (once per Session: the text is
 * saved) and `readResource` only through `read_skill_resource`.
 */
export interface SkillBinding {
  readonly kind: "skill";
  /** 1-64 characters of `^[a-z0-9]+(-[a-z0-9]+)*$`, unique in the agent. */
  readonly name: string;
  /** What the skill is for, shown to the model in the listing: 1-1,024 characters. */
  readonly description: string;
  /** The resources the skill offers, as relative POSIX paths (at most 200). Default: none. */
  readonly resources?: readonly string[];
  /** Reads the skill's instructions; called only on activation. */
  load(options: { readonly signal: AbortSignal }): Promise<string>;
  /** Reads one of `resources`: text, or an image; called only when the model asks for it. */
  readResource(path: string, options: { readonly signal: AbortSignal }): Promise<TextBlock | ImageBlock>;
}

/** A skill declaration: a direct binding, or a name the host's skill resolver looks up. */
export type SkillDeclaration = SkillBinding | string;

/**
 * Checks a skill binding's shape (name, description, functions, resource list).
 *
 * @throws DeclarationError naming what is wrong.
 */
export function assertSkillBinding(skill: unknown, where: string): asserts skill is SkillBinding {
  const candidate = skill as Partial<SkillBinding> | null;
  if (candidate === null || typeof candidate !== "object" || candidate.kind !== "skill") {
    throw new DeclarationError(`${where}: a skill must be a skill name or a { kind: "skill", ... } binding.`);
  }
  const name = candidate.name;
  if (typeof name !== "string" || name.length > 64 || !skillNamePattern.test(name)) {
    throw new DeclarationError(
      `${where}: skill name ${JSON.stringify(name)} must be 1-64 lowercase letters and digits in "-"-separated words.`,
    );
  }
  if (
    typeof candidate.description !== "string" ||
    candidate.description.length < 1 ||
    candidate.description.length > 1_024
  ) {
    throw new DeclarationError(`${where}: skill "${name}" needs a description of 1-1,024 characters.`);
  }
  if (typeof candidate.load !== "function" || typeof candidate.readResource !== "function") {
    throw new DeclarationError(`${where}: skill "${name}" needs load() and readResource() functions.`);
  }
  const resources = candidate.resources;
  if (
    resources !== undefined &&
    (!Array.isArray(resources) ||
      resources.length > 200 ||
      !resources.every((path) => typeof path === "string" && path !== ""))
  ) {
    throw new DeclarationError(`${where}: skill "${name}" resources must be at most 200 relative paths.`);
  }
}

/** Checks a `skills` option: names or bindings. */
export function checkSkillDeclarations(skills: unknown, where: string): readonly SkillDeclaration[] {
  if (skills === undefined) return [];
  if (!Array.isArray(skills))
    throw new DeclarationError(`${where}: skills must be an array of skill names or skill bindings.`);
  for (const skill of skills) {
    if (typeof skill === "string") {
      if (skill.length > 64 || !skillNamePattern.test(skill)) {
        throw new DeclarationError(
          `${where}: skill name ${JSON.stringify(skill)} must be 1-64 lowercase letters and digits in "-"-separated words.`,
        );
      }
    } else {
      assertSkillBinding(skill, where);
    }
  }
  return skills;
}
