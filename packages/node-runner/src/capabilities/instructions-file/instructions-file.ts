import { basename, extname } from "node:path";
import { fileURLToPath } from "node:url";
import { type Capability, DeclarationError, defineCapability, type Placement, resource } from "@castellan/harness";
import { type InstructionsFileSpec, instructionsFileKind } from "./instructions-file-kind.js";

export { InstructionsFileError, type InstructionsFileErrorCode } from "./instructions-file-error.js";

/** Options of `instructionsFile`. */
export interface InstructionsFileOptions {
  /**
   * The section's name, rendered as its heading: 1-64 letters, digits, ".", "_" or "-",
   * starting with a letter or digit. Default: the file name without its extension
   * (`review-rules.md` becomes `review-rules`).
   */
  readonly name?: string;
  /**
   * `system` (the default) puts the text in the system prompt; `context` sends it as current
   * user-side context every turn, where a blank file is simply omitted.
   */
  readonly placement?: Placement;
}

const optionKeys = new Set(["name", "placement"]);

/**
 * A capability whose one section is the text of an application file. Declaring does no I/O;
 * the file is resolved through symlinks and read once per Session, when it opens, as an
 * `instructions-file` resource (a new Session reads it again; changes do not reach an open
 * one). The section renders under its name after the agent's own sections and is never saved
 * in history. The capability is named `instructions-file:<name>`.
 *
 * Opening fails with an InstructionsFileError when the file is missing, not regular, not
 * UTF-8, or blank while system-placed. No size bound applies.
 *
 * @param fileUrl A `file:` URL (a URL or its string), e.g. `new URL("../rules.md", import.meta.url)`.
 * @throws DeclarationError for another URL or an invalid option or section name.
 */
export function instructionsFile(fileUrl: URL | string, options: InstructionsFileOptions = {}): Capability {
  const url = fileUrlOf(fileUrl);
  const where = `instructionsFile(${JSON.stringify(url.href)})`;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new DeclarationError(`${where}: options must be an object of { name?, placement? }.`);
  }
  const unknown = Object.keys(options).filter((key) => !optionKeys.has(key));
  if (unknown.length > 0) {
    throw new DeclarationError(
      `${where}: unknown option ${JSON.stringify(unknown[0])}; it accepts name and placement.`,
    );
  }
  const placement = options.placement ?? "system";
  if (placement !== "system" && placement !== "context") {
    throw new DeclarationError(`${where}: placement must be "system" or "context".`);
  }
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch (error) {
    throw new DeclarationError(`${where}: the URL names no local file path.`, { cause: error });
  }
  const name = options.name ?? basename(path, extname(path));
  const spec: InstructionsFileSpec = Object.freeze({ url: url.href, placement });
  const request = resource(instructionsFileKind, spec);
  try {
    return defineCapability({
      name: `instructions-file:${name}`,
      resources: [request],
      // A function of the acquired text, so the contents stay out of the declaration and history.
      instructions: [{ name, placement, resource: request, text: (ctx) => ctx.resource(request) }],
    });
  } catch (error) {
    if (!(error instanceof DeclarationError)) throw error;
    const hint = options.name === undefined ? " The name comes from the file name; pass { name } to choose one." : "";
    throw new DeclarationError(`${where}: ${error.message}${hint}`, { cause: error });
  }
}

function fileUrlOf(fileUrl: unknown): URL {
  let url: URL | undefined;
  if (fileUrl instanceof URL) url = new URL(fileUrl.href);
  else if (typeof fileUrl === "string" && URL.canParse(fileUrl)) url = new URL(fileUrl);
  if (url?.protocol !== "file:") {
    throw new DeclarationError(
      `instructionsFile: ${JSON.stringify(String(fileUrl))} is not a file: URL; pass one such as new URL("../rules.md", import.meta.url).`,
    );
  }
  return url;
}
