import { CastellanError, errorMessage } from "@castellan/harness";

/** A SKILL.md breaks a rule (front matter, name, description, size); the message names the file and the field. */
export class SkillInvalidError extends CastellanError {
  /** The SKILL.md path. */
  readonly file: string;
  /** The offending field (`name`, `description`, `front matter`, `size`, ...). */
  readonly field: string;

  constructor(file: string, field: string, message: string, options?: { cause?: unknown }) {
    super("skill_invalid", `${file}: ${message}`, options);
    this.file = file;
    this.field = field;
  }
}

/** A skill named in a declaration (or listed in `skills({ names })`) is found nowhere. */
export class SkillNotFoundError extends CastellanError {
  readonly skillName: string;

  constructor(skillName: string, message: string) {
    super("skill_not_found", message);
    this.skillName = skillName;
  }
}

/** `skills({ directory })` names a directory that does not exist (or is not one). */
export class SkillDirectoryMissingError extends CastellanError {
  readonly directory: string;

  constructor(directory: string, options?: { cause?: unknown }) {
    super("skill_directory_missing", `The skill directory ${directory} does not exist or is not a directory.`, options);
    this.directory = directory;
  }
}

/** Two different skills claim one name. */
export class SkillNameConflictError extends CastellanError {
  readonly skillName: string;

  constructor(skillName: string, first: string, second: string) {
    super(
      "skill_name_conflict",
      `Two different skills are named "${skillName}": one from ${first}, one from ${second}.`,
    );
    this.skillName = skillName;
  }
}

/** A Program holds more skills than the bound. */
export class SkillsTooManyError extends CastellanError {
  constructor(count: number, limit: number) {
    super("skills_too_many", `The agent has ${count} skills; at most ${limit} are allowed.`);
  }
}

/** The agent declares skills by name, but no skill resolver is registered. */
export class SkillsUnavailableError extends CastellanError {
  constructor(agentId: string, names: readonly string[]) {
    super(
      "skills_unavailable",
      `Agent "${agentId}" declares skills by name (${names.join(", ")}), but no plugin registers a skill resolver; register one (createSkillResolverPlugin) or bind the skills directly.`,
    );
  }
}

/** A host's `activateSkills` names a skill that is not available this turn (unknown or hidden); the Run ends before the model is asked. */
export class SkillNotAvailableError extends CastellanError {
  readonly skillName: string;

  constructor(skillName: string) {
    super("skill_not_available", `The skill "${skillName}" is not available in this turn.`);
    this.skillName = skillName;
  }
}

/** A skill's `load()` failed (host activation); the Run ends before the model is asked. */
export class SkillLoadError extends CastellanError {
  readonly skillName: string;

  constructor(skillName: string, options: { cause: unknown }) {
    const cause = options.cause;
    super("skill_load_failed", `Loading the skill "${skillName}" failed: ${errorMessage(cause)}`, options);
    this.skillName = skillName;
  }
}
