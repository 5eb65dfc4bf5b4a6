import { opendir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ImageBlock, SkillBinding, TextBlock } from "@castellan/harness";
import { ToolInputError } from "@castellan/harness";
import { SkillInvalidError } from "../../kernel/skills/errors.js";
import { maxSkillImageBytes, maxSkillTextBytes, resourceRefused } from "../../kernel/skills/limits.js";
import { sniffImage } from "../../platform/image/sniff.js";
import { readWholeFile } from "../../platform/paths/open-file.js";
import { resolveForRead } from "../../platform/paths/resolve-read.js";
import { bindWorkspaceRootSync } from "../../platform/paths/root.js";
import { parseSkillFile } from "./skill-file.js";

/** Most resources one skill lists. */
export const maxSkillResources = 200;

/** The other regular files of a skill's directory, as sorted relative POSIX paths; links and special files are left out. */
async function listResources(directory: string, file: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (relative: string): Promise<void> => {
    const handle = await opendir(relative === "" ? directory : join(directory, relative));
    const entries: { name: string; kind: "file" | "directory" }[] = [];
    for await (const entry of handle) {
      if (entry.isFile()) entries.push({ name: entry.name, kind: "file" });
      else if (entry.isDirectory()) entries.push({ name: entry.name, kind: "directory" });
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.kind === "directory") await visit(path);
      else if (path !== "SKILL.md") found.push(path);
      if (found.length > maxSkillResources) {
        throw new SkillInvalidError(
          file,
          "resources",
          `the skill's directory holds more than ${maxSkillResources} resource files.`,
        );
      }
    }
  };
  await visit("");
  return found;
}

/**
 * Reads one resource file of a skill directory by the workspace path rules (a relative POSIX
 * path, no `..`, no link through a directory, a final link only to a regular file inside the
 * skill): UTF-8 text up to 256 KiB as text, a PNG, JPEG, GIF or WebP up to 2 MiB as an image.
 *
 * @throws ToolInputError `skill_resource_refused` naming the reason.
 */
export async function readDirectoryResource(directory: string, path: string): Promise<TextBlock | ImageBlock> {
  const root = bindWorkspaceRootSync(pathToFileURL(`${directory}/`));
  let bytes: Uint8Array;
  try {
    const file = await resolveForRead(root, path);
    if (file.filePath === "SKILL.md")
      throw resourceRefused(path, "SKILL.md is the skill itself; activate the skill to read it");
    bytes = await readWholeFile(file, maxSkillImageBytes);
  } catch (error) {
    if (error instanceof ToolInputError && error.code !== "skill_resource_refused") {
      throw resourceRefused(path, error.code === "file_too_large" ? "it is larger than 2 MiB" : error.message);
    }
    throw error;
  }
  const image = sniffImage(bytes.subarray(0, 512));
  if (image.image) {
    return { type: "image", mediaType: image.mediaType, data: Buffer.from(bytes).toString("base64") };
  }
  if (bytes.length > maxSkillTextBytes) throw resourceRefused(path, "text resources are at most 256 KiB");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw resourceRefused(path, "it is neither UTF-8 text nor a PNG, JPEG, GIF or WebP image");
  }
  if (text.includes("\u0000")) throw resourceRefused(path, "it is binary, not text");
  return { type: "text", text };
}

/**
 * The skill in `directory` (its `SKILL.md` and resource files): front matter checked now, the
 * body read again, whole, at each `load()`, so an edit made before activation is what loads.
 *
 * @throws SkillInvalidError (`skill_invalid`) for a SKILL.md that breaks a rule or is missing.
 */
export async function readSkillDirectory(directory: string): Promise<SkillBinding> {
  const file = join(directory, "SKILL.md");
  const directoryName = basename(directory);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile())
    throw new SkillInvalidError(file, "SKILL.md", "the skill's directory has no regular SKILL.md file.");
  const parsed = parseSkillFile(await readFile(file), file, directoryName);
  const resources = Object.freeze(await listResources(directory, file));
  return Object.freeze({
    kind: "skill" as const,
    name: parsed.name,
    description: parsed.description,
    resources,
    async load() {
      return parseSkillFile(await readFile(file), file, directoryName).body;
    },
    readResource: (path: string) => readDirectoryResource(directory, path),
  });
}
