import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, rm } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { skillNamePattern } from "@castellan/harness";
import { isSkillResourcePath, type JobSkill } from "./capability-schemas.js";

/** Writing a job's skills was refused: a path on the way is a link or not a directory, or a name or resource path breaks the rules. */
export class SkillMaterializeError extends Error {
  /** The path at fault. */
  readonly path: string;

  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SkillMaterializeError";
    this.path = path;
  }
}

/** What is at `path`, without following a final link. */
async function kindOf(path: string): Promise<"directory" | "link" | "other" | "absent"> {
  try {
    const stats = await lstat(path);
    return stats.isSymbolicLink() ? "link" : stats.isDirectory() ? "directory" : "other";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "absent";
    throw error;
  }
}

/** Makes one directory (its parent exists and is ours), 0700 whatever the umask; an existing one must be a real directory. */
async function makeDirectory(path: string): Promise<void> {
  try {
    await mkdir(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    if ((await kindOf(path)) !== "directory") {
      throw new SkillMaterializeError(path, `${path} exists and is not a directory; nothing is written through it.`);
    }
  }
  await chmod(path, 0o700);
}

/** Creates `path` (never there before, never a link followed) as a 0600 file holding `bytes`. */
async function writeNewFile(path: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    // The mode open() gives is masked by the umask; the file is 0600 whatever it is.
    await handle.chmod(0o600);
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

/**
 * Writes each skill as `<directory>/<name>/SKILL.md` and its resources at their paths below
 * it, directories 0700 and files 0600, for `createSkillResolverPlugin({ directories: [directory] })`
 * to find. `directory` is absolute and belongs to the job (under its own directory, never in the
 * checkout); it is made when missing. Nothing is written through a link: `directory` or a
 * skill's directory being a link (or not a directory) is refused, a skill directory left by an
 * earlier call is replaced whole, and every file is created new (`O_EXCL | O_NOFOLLOW`).
 * Resource paths are checked again here, whoever checked the body.
 *
 * @throws SkillMaterializeError for a link or non-directory on the way or a bad resource path; a write's own error otherwise.
 */
export async function materializeSkills(directory: string, skills: readonly JobSkill[]): Promise<void> {
  if (!isAbsolute(directory)) {
    throw new SkillMaterializeError(directory, "The skills directory must be an absolute path.");
  }
  const kind = await kindOf(directory);
  if (kind === "link" || kind === "other") {
    throw new SkillMaterializeError(
      directory,
      `The skills directory ${directory} is ${kind === "link" ? "a link" : "not a directory"}; nothing is written through it.`,
    );
  }
  if (kind === "absent") await mkdir(directory, { recursive: true, mode: 0o700 });
  // mkdir made every missing parent; the directory itself is checked again, then made private.
  if ((await kindOf(directory)) !== "directory") {
    throw new SkillMaterializeError(directory, `The skills directory ${directory} is not a directory.`);
  }
  await chmod(directory, 0o700);
  for (const skill of skills) {
    if (typeof skill.name !== "string" || skill.name.length > 64 || !skillNamePattern.test(skill.name)) {
      throw new SkillMaterializeError(directory, "A skill's name is not a skill name.");
    }
    const skillDirectory = join(directory, skill.name);
    const existing = await kindOf(skillDirectory);
    if (existing === "link" || existing === "other") {
      throw new SkillMaterializeError(
        skillDirectory,
        `${skillDirectory} is ${existing === "link" ? "a link" : "not a directory"}; nothing is written through it.`,
      );
    }
    // A skill written by an earlier call is replaced whole (rm never follows a link inside it).
    if (existing === "directory") await rm(skillDirectory, { recursive: true });
    await makeDirectory(skillDirectory);
    await writeNewFile(join(skillDirectory, "SKILL.md"), Buffer.from(skill.content, "utf8"));
    for (const resource of skill.resources ?? []) {
      if (!isSkillResourcePath(resource.path)) {
        throw new SkillMaterializeError(
          skillDirectory,
          `A resource of the skill "${skill.name}" has a path outside the workspace path rules.`,
        );
      }
      const segments = resource.path.split("/");
      let parent = skillDirectory;
      for (const segment of segments.slice(0, -1)) {
        parent = join(parent, segment);
        await makeDirectory(parent);
      }
      const bytes =
        resource.encoding === "utf8" ? Buffer.from(resource.content, "utf8") : Buffer.from(resource.content, "base64");
      await writeNewFile(join(parent, segments.at(-1) as string), bytes);
    }
  }
}
