import type { JsonValue } from "@castellan/harness";
import { errorMessage, skillNamePattern } from "@castellan/harness";
import { SkillInvalidError } from "../../kernel/skills/errors.js";
import { lazyModule } from "../../platform/modules/lazy-module.js";

const yaml = lazyModule<typeof import("yaml")>("yaml");

/** Largest SKILL.md, in bytes. */
export const maxSkillFileBytes = 131_072;
/** The front matter must close within this many bytes of the file's start. */
export const maxFrontMatterBytes = 16_384;

/** A parsed SKILL.md. */
export interface SkillFile {
  readonly name: string;
  readonly description: string;
  /** Every other front-matter key (`license`, `metadata`, `allowed-tools`, ...), kept as data: it grants nothing. */
  readonly metadata: Readonly<Record<string, JsonValue>>;
  /** The Markdown after the front matter. */
  readonly body: string;
}

/**
 * Parses a SKILL.md: YAML front matter between `---` lines (closing within 16 KiB), then the
 * Markdown body; a BOM and CRLF line ends are accepted. `name` must be 1-64 characters of
 * `^[a-z0-9]+(-[a-z0-9]+)*$` and equal `directoryName`; `description` 1-1,024 characters.
 *
 * @throws SkillInvalidError (`skill_invalid`) naming `file` and the field.
 */
export function parseSkillFile(bytes: Uint8Array, file: string, directoryName: string): SkillFile {
  if (bytes.length > maxSkillFileBytes) {
    throw new SkillInvalidError(
      file,
      "size",
      `the file is ${bytes.length} bytes; a SKILL.md is at most ${maxSkillFileBytes.toLocaleString("en")}.`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new SkillInvalidError(file, "encoding", "the file is not UTF-8 text.", { cause: error });
  }
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  text = text.replace(/\r\n/g, "\n");
  if (!text.startsWith("---\n")) {
    throw new SkillInvalidError(
      file,
      "front matter",
      'the file must start with YAML front matter between "---" lines.',
    );
  }
  const close = text.indexOf("\n---", 3);
  const closeEnd = close === -1 ? -1 : close + 4;
  if (close === -1 || (closeEnd < text.length && text[closeEnd] !== "\n")) {
    throw new SkillInvalidError(file, "front matter", 'the front matter is not closed by a "---" line.');
  }
  if (Buffer.byteLength(text.slice(0, closeEnd), "utf8") > maxFrontMatterBytes) {
    throw new SkillInvalidError(
      file,
      "front matter",
      `the front matter must close within ${maxFrontMatterBytes.toLocaleString("en")} bytes.`,
    );
  }
  let data: unknown;
  try {
    data = yaml().parse(text.slice(4, close + 1));
  } catch (error) {
    throw new SkillInvalidError(file, "front matter", `the front matter is not valid YAML: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new SkillInvalidError(file, "front matter", "the front matter must be a mapping of keys.");
  }
  const { name, description, ...rest } = data as Record<string, unknown>;
  if (typeof name !== "string" || name.length > 64 || !skillNamePattern.test(name)) {
    throw new SkillInvalidError(
      file,
      "name",
      `name ${JSON.stringify(name)} must be 1-64 lowercase letters and digits in "-"-separated words.`,
    );
  }
  if (name !== directoryName) {
    throw new SkillInvalidError(file, "name", `name "${name}" must equal its directory's name, "${directoryName}".`);
  }
  if (typeof description !== "string" || description.trim().length === 0 || description.length > 1_024) {
    throw new SkillInvalidError(file, "description", "description must be a string of 1-1,024 characters.");
  }
  let metadata: Record<string, JsonValue>;
  try {
    metadata = JSON.parse(JSON.stringify(rest)) as Record<string, JsonValue>;
  } catch (error) {
    throw new SkillInvalidError(file, "metadata", "the other front-matter keys must be plain data.", { cause: error });
  }
  const bodyStart = closeEnd < text.length ? closeEnd + 1 : closeEnd;
  return Object.freeze({ name, description, metadata: Object.freeze(metadata), body: text.slice(bodyStart) });
}
