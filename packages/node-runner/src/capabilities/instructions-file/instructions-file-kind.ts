import { constants } from "node:fs";
import { type FileHandle, open, realpath } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { BindingKind, BindingLease, Placement } from "@castellan/harness";
import { InstructionsFileError } from "./instructions-file-error.js";

/** What one instructions file resource is acquired from: JSON, so it shows as declared. */
export interface InstructionsFileSpec {
  /** The declared `file:` URL, as its `href`. */
  readonly url: string;
  /** Where the section goes; a blank file fails only a system-placed one. */
  readonly placement: Placement;
}

// A FIFO would block `open` until a writer came; non-blocking, it opens at once and fails the
// regular-file check instead. (Windows has no such flag and no FIFOs to open by path.)
const openFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

// `fatal`: a file that is not UTF-8 is refused rather than read with replacement characters.
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The `instructions-file` binding kind: resolves the URL through any symlinks, reads the
 * regular file it names once, closes it, and leases its text (a string, so immutable). The
 * lease holds nothing open; `close` does nothing. Fails with an InstructionsFileError.
 */
export const instructionsFileKind: BindingKind<InstructionsFileSpec, string> = Object.freeze({
  name: "instructions-file",
  describe: (spec: InstructionsFileSpec) => ({ url: spec.url }),
  async acquire(
    spec: InstructionsFileSpec,
    { signal }: { readonly signal: AbortSignal },
  ): Promise<BindingLease<string>> {
    signal.throwIfAborted();
    const { text, path } = await readText(spec.url, signal);
    if (spec.placement === "system" && text.trim().length === 0) {
      throw new InstructionsFileError(
        "instructions_file_blank",
        `Instructions file ${spec.url} is blank; a system-placed instructions file needs text.`,
        { url: spec.url, path },
      );
    }
    return { value: text, close: () => undefined };
  },
});

async function readText(url: string, signal: AbortSignal): Promise<{ text: string; path: string }> {
  const declared = fileURLToPath(url);
  let path: string;
  try {
    path = await realpath(declared);
  } catch (error) {
    throw classify(error, url, undefined) ?? error;
  }
  let handle: FileHandle;
  try {
    handle = await open(path, openFlags);
  } catch (error) {
    throw classify(error, url, path) ?? error;
  }
  let bytes: Uint8Array;
  try {
    if (!(await handle.stat()).isFile()) throw notRegular(url, path);
    bytes = await handle.readFile({ signal });
  } finally {
    await handle.close();
  }
  try {
    return { text: utf8.decode(bytes), path };
  } catch (error) {
    throw new InstructionsFileError("instructions_file_invalid_utf8", `Instructions file ${url} is not valid UTF-8.`, {
      url,
      path,
      cause: error,
    });
  }
}

/** The typed error for a failure that says what the URL names; undefined for others (e.g. a permission). */
function classify(error: unknown, url: string, path: string | undefined): InstructionsFileError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  // A dangling or looping symlink names no file, as a missing one does.
  if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") {
    const target = path === undefined ? "" : ` (resolved to ${path})`;
    return new InstructionsFileError("instructions_file_missing", `Instructions file ${url}${target} does not exist.`, {
      url,
      ...(path === undefined ? {} : { path }),
      cause: error,
    });
  }
  // A socket cannot be opened; some platforms refuse to open a directory.
  if (code === "ENXIO" || code === "EISDIR") return notRegular(url, path, error);
  return undefined;
}

function notRegular(url: string, path: string | undefined, cause?: unknown): InstructionsFileError {
  const target = path === undefined ? "" : ` (${path})`;
  return new InstructionsFileError(
    "instructions_file_not_regular",
    `Instructions file ${url}${target} is not a regular file.`,
    { url, ...(path === undefined ? {} : { path }), ...(cause === undefined ? {} : { cause }) },
  );
}
