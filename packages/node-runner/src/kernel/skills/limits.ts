import { ToolInputError } from "@castellan/harness";

/** Largest text resource returned, in bytes. */
export const maxSkillTextBytes = 262_144;
/** Largest image resource returned, in bytes. */
export const maxSkillImageBytes = 2_097_152;

/** A refusal of `read_skill_resource`, with the reason. */
export function resourceRefused(path: string, reason: string): ToolInputError {
  return new ToolInputError("skill_resource_refused", `${JSON.stringify(path)} cannot be read: ${reason}.`);
}
