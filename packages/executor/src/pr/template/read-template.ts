import { decodeUtf8, errorCode, readBoundedFile } from "../../sentinels/bounded-file.js";
import type { ContainedWalk, FoundEntry } from "./contained-walk.js";

/**
 * The largest template used: 64 KiB (65,536 bytes). It rides in every pass's prompt, and a
 * real template is a few KiB; a bigger file is ignored with a note rather than cut, since a
 * half template would be filled in as if it were whole.
 */
export const maxTemplateBytes = 65_536;

/** A repository's PR template. */
export interface PrTemplate {
  /** Relative to the checkout, spelt as on disk (the link's path when it is a symlink). */
  readonly path: string;
  /** Its text, as UTF-8 (a byte-order mark dropped). */
  readonly content: string;
}

/**
 * The template at `found`, or undefined with a note when it is over 64 KiB, not UTF-8, blank,
 * or unreadable. Opened without following a last symlink, so one swapped in after the walk
 * checked the path is refused.
 */
export async function readTemplate(walk: ContainedWalk, found: FoundEntry): Promise<PrTemplate | undefined> {
  const ignored = (why: string) => {
    walk.notes.push(`\`${found.path}\` ${why}; it was ignored.`);
    return undefined;
  };
  let file: Awaited<ReturnType<typeof readBoundedFile>>;
  try {
    file = await readBoundedFile(found.real, maxTemplateBytes);
  } catch (error) {
    return ignored(`could not be read (${errorCode(error) ?? "unknown error"})`);
  }
  if (file.kind === "symlink") return ignored("became a symlink while it was read");
  if (file.kind === "not-a-file") return ignored("is not a regular file");
  if (file.kind === "too-large") {
    return ignored(`is ${file.size} bytes, over the bound of ${maxTemplateBytes} for a template`);
  }
  const content = decodeUtf8(file.bytes);
  if (content === undefined) return ignored("is not valid UTF-8");
  if (content.trim() === "") return ignored("is empty");
  return { path: found.path, content };
}
