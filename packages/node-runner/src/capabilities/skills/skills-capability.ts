import { opendir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type BindingKind,
  type Capability,
  DeclarationError,
  defineCapability,
  type Enabled,
  type JsonObject,
  resource,
  type SkillBinding,
  skillNamePattern,
} from "@castellan/harness";
import { SkillDirectoryMissingError, SkillNotFoundError } from "../../kernel/skills/errors.js";
import { readSkillDirectory } from "./skill-directory.js";

/** Options of {@link skills}. */
export interface SkillsOptions {
  /** A `file:` URL (or absolute path) of a directory holding one directory per skill, or a function of the Session's params returning one. */
  readonly directory: URL | string | ((params: JsonObject) => URL | string);
  /** Only these skills of the directory (each must exist there). Default: every subdirectory with a SKILL.md. */
  readonly names?: readonly string[];
  /** Hides every skill of the directory for a turn (the listing, the tools' answers, saved activations). Default true. */
  readonly enabled?: Enabled;
}

function directoryPath(value: URL | string): string {
  if (value instanceof URL) {
    if (value.protocol !== "file:") throw new SkillDirectoryMissingError(value.href);
    return fileURLToPath(value);
  }
  return value.startsWith("file:") ? fileURLToPath(value) : value;
}

/** The skills in `directory`: every immediate subdirectory holding a SKILL.md, or exactly `names`. */
export async function readSkillsDirectory(
  directory: string,
  names: readonly string[] | undefined,
): Promise<SkillBinding[]> {
  const info = await stat(directory).catch(() => undefined);
  if (!info?.isDirectory()) throw new SkillDirectoryMissingError(directory);
  if (names) {
    const found: SkillBinding[] = [];
    for (const name of names) {
      const skillDirectory = join(directory, name);
      const file = await stat(join(skillDirectory, "SKILL.md")).catch(() => undefined);
      if (!file?.isFile())
        throw new SkillNotFoundError(name, `The skill "${name}" is not in ${directory} (no ${name}/SKILL.md).`);
      found.push(await readSkillDirectory(skillDirectory));
    }
    return found;
  }
  const subdirectories: string[] = [];
  for await (const entry of await opendir(directory)) if (entry.isDirectory()) subdirectories.push(entry.name);
  const found: SkillBinding[] = [];
  for (const name of subdirectories.sort()) {
    const file = await stat(join(directory, name, "SKILL.md")).catch(() => undefined);
    if (file?.isFile()) found.push(await readSkillDirectory(join(directory, name)));
  }
  return found;
}

/**
 * A capability (named `skills`) offering the SKILL.md skills of one directory: each immediate
 * subdirectory whose `SKILL.md` has valid front matter, or exactly `names`. Declaring does no
 * I/O; each Session open reads the front matter (a body is read only when its skill is
 * activated). Its skills hide with it (`enabled`).
 *
 * @throws DeclarationError for a malformed option. Opening fails with `skill_directory_missing`, `skill_not_found` or `skill_invalid`.
 */
export function skills(options: SkillsOptions): Capability {
  if (options === null || typeof options !== "object")
    throw new DeclarationError("skills: options are required: { directory }.");
  for (const key of Object.keys(options)) {
    if (!["directory", "names", "enabled"].includes(key)) {
      throw new DeclarationError(`skills: ${key} is not an option; the options are directory, names, enabled.`);
    }
  }
  const { directory, names } = options;
  if (!(directory instanceof URL) && typeof directory !== "string" && typeof directory !== "function") {
    throw new DeclarationError("skills: directory must be a file: URL, a path, or a function of params returning one.");
  }
  if (
    names !== undefined &&
    (!Array.isArray(names) || !names.every((name) => typeof name === "string" && skillNamePattern.test(name)))
  ) {
    throw new DeclarationError("skills: names must be skill names.");
  }
  const kind: BindingKind<string, readonly SkillBinding[]> = {
    name: "skills-directory",
    describe: (spec) => ({ directory: spec }),
    async acquire(spec, { signal }) {
      signal.throwIfAborted();
      const found = await readSkillsDirectory(spec, names);
      return { value: Object.freeze(found), skills: found, close: () => undefined };
    },
  };
  const spec =
    typeof directory === "function"
      ? { fromParams: (params: JsonObject) => directoryPath(directory(params)) }
      : directoryPath(directory);
  return defineCapability({
    name: "skills",
    resources: [resource(kind, spec)],
    ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
  });
}
