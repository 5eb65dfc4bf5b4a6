import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * The folder a `castellan` process keeps its state in: `CASTELLAN_HOME` when set (resolved
 * against the current directory), else `~/.castellan`. It holds `sessions/`, `tasks/` and `live/`.
 */
export function castellanHome(env: NodeJS.ProcessEnv): string {
  const configured = env.CASTELLAN_HOME;
  return configured ? resolve(configured) : join(homedir(), ".castellan");
}

/** Where the Sessions of `castellan` are saved: `<home>/sessions`. */
export function sessionsDirectory(home: string): string {
  return join(home, "sessions");
}
