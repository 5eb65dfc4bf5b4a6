// Private files written so a crash never leaves a torn one: shared by the stores here and by
// the executor's job records, tokens and checkpoints.
import { chmod, mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

/** Makes `directory` (and missing parents) and leaves it 0700, whatever the umask. */
export async function makePrivateDirectory(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await chmod(directory, 0o700);
}

/**
 * Replaces `path` with `text` atomically and privately: a 0600 temporary file beside it, fsync,
 * rename over the old file, then the directory's fsync, so a crash leaves the old file or the
 * new one, never a torn one.
 */
export async function writePrivateFileAtomically(path: string, text: string): Promise<void> {
  const directory = dirname(path);
  const temporary = `${path}.${process.pid}.${crypto.randomUUID()}.tmp`;
  const handle = await open(temporary, "wx", 0o600);
  try {
    // The mode open() gives is masked by the umask; the file is 0600 whatever it is.
    await handle.chmod(0o600);
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const folder = await open(directory, "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
