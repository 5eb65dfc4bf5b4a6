import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** How a capture's PNG reaches the disk; the seam tests slow down. */
export interface CaptureFiles {
  /** Writes `bytes` to `file` atomically: a temporary file in the same directory, then a rename. */
  writeAtomically(file: string, bytes: Uint8Array): Promise<void>;
}

/** Writes with `node:fs`: the temporary file is exclusive-created and removed again on failure. */
export const nodeCaptureFiles: CaptureFiles = {
  async writeAtomically(file, bytes) {
    const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
    try {
      await writeFile(temporary, bytes, { flag: "wx" });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
  },
};
