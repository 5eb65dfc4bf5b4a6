import { stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidOptionsError } from "../../kernel/errors/errors.js";
import type { NodeRunnerPlugin } from "../../kernel/runner/plugin.js";
import { readSkillDirectory } from "./skill-directory.js";

/** Options of {@link createSkillResolverPlugin}. */
export interface SkillResolverPluginOptions {
  /** Directories to look in, in order: `<directory>/<name>/SKILL.md`, the first found wins. `file:` URLs or absolute paths. */
  readonly directories: readonly (URL | string)[];
}

/**
 * Registers the SKILL.md skill resolver: a skill an agent declares by name (`skills: ["name"]`)
 * is looked up as `<directory>/<name>/SKILL.md` in each directory in order, the first hit
 * winning. Called once per Session open, only for names nothing else provides.
 *
 * @throws InvalidOptionsError for a directory that is not a `file:` URL or an absolute path.
 */
export function createSkillResolverPlugin(options: SkillResolverPluginOptions): NodeRunnerPlugin {
  if (!Array.isArray(options?.directories) || options.directories.length === 0) {
    throw new InvalidOptionsError("createSkillResolverPlugin: directories must list at least one directory.");
  }
  const directories = options.directories.map((directory) => {
    const path = directory instanceof URL || directory.startsWith("file:") ? fileURLToPath(directory) : directory;
    if (!path.startsWith("/"))
      throw new InvalidOptionsError(
        `createSkillResolverPlugin: ${String(directory)} is not a file: URL or an absolute path.`,
      );
    return path;
  });
  const plugin: NodeRunnerPlugin = {
    name: "castellan.skill-resolver",
    apply(host) {
      host.registerSkillResolver({
        async resolve({ name, signal }) {
          for (const directory of directories) {
            signal.throwIfAborted();
            const file = await stat(join(directory, name, "SKILL.md")).catch(() => undefined);
            if (file?.isFile()) return await readSkillDirectory(join(directory, name));
          }
          return undefined;
        },
      });
    },
  };
  return Object.freeze(plugin);
}
