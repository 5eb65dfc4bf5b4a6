import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Creates a fresh directory under the OS temp dir whose name starts with `prefix`. */
export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Removes a directory and everything in it, if it exists. */
export function removeDir(directory: string): Promise<void> {
  return rm(directory, { recursive: true, force: true });
}

/** The text of every file in `directory`, in directory order. */
export async function readFiles(directory: string): Promise<string[]> {
  return Promise.all((await readdir(directory)).map((name) => readFile(join(directory, name), "utf8")));
}
