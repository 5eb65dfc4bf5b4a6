// Internal to platform/paths: system errors the model can act on, as refusals.
import { quote, refusal } from "../../kernel/workspace-path/refusal.js";

/** The `code` of a Node system error (`ENOENT`, ...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A system error met while using `path` (a workspace path), as a refusal when it is one the
 * model can act on; any other error is returned unchanged, for the tool to report as a failure.
 */
export function ioFailure(error: unknown, path: string): unknown {
  switch (errorCode(error)) {
    case "EACCES":
    case "EPERM":
      return refusal("permission_denied", `The operating system denied access to ${quote(path)}.`, error);
    case "ENAMETOOLONG":
      return refusal(
        "path_invalid",
        `The path ${quote(path)} is too long for the file system; use a shorter one.`,
        error,
      );
    default:
      return error;
  }
}
