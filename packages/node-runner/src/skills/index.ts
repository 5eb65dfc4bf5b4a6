export {
  SkillDirectoryMissingError,
  SkillInvalidError,
  SkillLoadError,
  SkillNameConflictError,
  SkillNotAvailableError,
  SkillNotFoundError,
  SkillsTooManyError,
  SkillsUnavailableError,
} from "./errors.js";
export { createSkillResolverPlugin, type SkillResolverPluginOptions } from "./resolver-plugin.js";
export { activeSkillsKey, maxSkills, type SkillActivation } from "./session-skills.js";
export { maxSkillImageBytes, maxSkillResources, maxSkillTextBytes, readSkillDirectory } from "./skill-directory.js";
export { maxFrontMatterBytes, maxSkillFileBytes, parseSkillFile, type SkillFile } from "./skill-file.js";
export { type SkillsOptions, skills } from "./skills-capability.js";
