export {
  SkillDirectoryMissingError,
  SkillInvalidError,
  SkillLoadError,
  SkillNameConflictError,
  SkillNotAvailableError,
  SkillNotFoundError,
  SkillsTooManyError,
  SkillsUnavailableError,
} from "../../kernel/skills/errors.js";
export { maxSkillImageBytes, maxSkillTextBytes } from "../../kernel/skills/limits.js";
export { activeSkillsKey, maxSkills, type SkillActivation } from "../../kernel/skills/session-skills.js";
export { createSkillResolverPlugin, type SkillResolverPluginOptions } from "./resolver-plugin.js";
export { maxSkillResources, readSkillDirectory } from "./skill-directory.js";
export { maxFrontMatterBytes, maxSkillFileBytes, parseSkillFile, type SkillFile } from "./skill-file.js";
export { type SkillsOptions, skills } from "./skills-capability.js";
