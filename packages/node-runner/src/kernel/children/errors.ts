import { CastellanError } from "@castellan/harness";

/** `toolGrants` names a tool the child does not have. */
export class ChildGrantUnknownError extends CastellanError {
  constructor(childId: string, unknown: readonly string[], known: readonly string[]) {
    super(
      "child_grant_unknown",
      `The child agent "${childId}" has no tool ${unknown.map((name) => `"${name}"`).join(", ")} to grant; its tools are ${known.join(", ") || "none"}.`,
    );
  }
}
