import { CastellanError } from "@castellan/harness";

/** A workspace root cannot be bound: not a `file:` URL, missing, or not a directory. Thrown when the tools are created. */
export class WorkspaceRootError extends CastellanError {
  /** The root as it was given. */
  readonly root: string;

  constructor(root: URL | string | unknown, message: string, options?: { cause?: unknown }) {
    super("workspace_root_invalid", message, options);
    this.root = String(root);
  }
}
