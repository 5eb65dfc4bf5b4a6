import { tmpdir } from "node:os";
import { join } from "node:path";

/** A Unix socket path longer than this many bytes is refused by some kernels (sun_path is 108 with its NUL). */
export const maxSocketPathBytes = 100;

/** The widest pid Linux hands out (pid_max is at most 4,194,304): the socket path is sized for it. */
const widestPid = "4194304";

/**
 * The folder of the live channel's sockets: `<home>/live`, or `<os.tmpdir()>/castellan-live-<uid>`
 * when a socket path there (`<dir>/<pid>.sock`) could pass {@link maxSocketPathBytes} bytes.
 */
export function liveDirectory(home: string): string {
  const preferred = join(home, "live");
  if (Buffer.byteLength(join(preferred, `${widestPid}.sock`)) <= maxSocketPathBytes) return preferred;
  return join(tmpdir(), `castellan-live-${process.getuid?.() ?? "user"}`);
}

/** Where `castellan`'s task lists are kept: `<home>/tasks`. */
export function tasksDirectory(home: string): string {
  return join(home, "tasks");
}
