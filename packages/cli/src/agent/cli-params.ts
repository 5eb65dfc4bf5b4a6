import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { JsonObject } from "@castellan/harness";
import { workspaceUrl } from "../home/workspace-url.js";
import { CliError } from "../process/cli-error.js";

/** Where commands run: in the OS sandbox (`os`) or uncontained (`none`). */
export type SandboxMode = "os" | "none";

/**
 * The params of a `castellan.cli` Session: everything its Agent is built from, so any
 * `castellan` process rebuilds the same Agent from the Session's `session-open` record.
 */
export interface CliParams {
  /** The file URL of the directory `castellan` was started in. */
  readonly workspace: string;
  readonly sandbox: SandboxMode;
  /** Whether the managed Chromium's `browser_*` tools are present. */
  readonly browser: boolean;
  /** The file URL of `<workspace>/.castellan/skills/` when it existed at first open, else null. */
  readonly skills: string | null;
}

/** The params of a new Session in `cwd`. */
export function newCliParams(cwd: string, sandbox: SandboxMode, browser: boolean): CliParams {
  const skillsPath = join(cwd, ".castellan", "skills");
  const skills =
    existsSync(skillsPath) && statSync(skillsPath).isDirectory() ? pathToFileURL(`${skillsPath}/`).href : null;
  return { workspace: workspaceUrl(cwd), sandbox, browser, skills };
}

/** Saved params read back: refused (`session_params_mismatch`) unless they are a `castellan.cli` Session's. */
export function readCliParams(params: JsonObject, sessionId: string): CliParams {
  const { workspace, sandbox, browser, skills } = params;
  if (
    typeof workspace !== "string" ||
    !workspace.startsWith("file:") ||
    (sandbox !== "os" && sandbox !== "none") ||
    typeof browser !== "boolean" ||
    (skills !== null && typeof skills !== "string")
  ) {
    throw new CliError(
      "session_params_mismatch",
      `Session ${sessionId} was not saved by castellan (its params are not a workspace, sandbox, browser and skills).`,
    );
  }
  return { workspace, sandbox, browser, skills };
}
