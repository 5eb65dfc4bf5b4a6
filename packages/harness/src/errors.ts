import type { CastellanErrorCode } from "./error-codes.js";
import { scrubInspected, wasScrubbed } from "./redaction.js";

// Node's util.inspect looks this symbol up; taken by its registered name, so the kernel imports no node:util.
const inspectCustom = Symbol.for("nodejs.util.inspect.custom");
/** Errors being printed by their own hook, which asks the default printing for them once. */
const printing = new WeakSet<object>();

/**
 * The base of every error Castellan throws: a stable `code` to branch on, a message that says
 * what to do next, and the original `cause` where there is one.
 */
export class CastellanError extends Error {
  /** A stable identifier for this kind of failure, e.g. `"model_not_found"`: one of {@link CastellanErrorCode}. */
  readonly code: CastellanErrorCode;

  constructor(code: CastellanErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  /**
   * `util.inspect` of a Castellan error: Node's own printing, scrubbed with every redactor that
   * scrubbed this error or one in its `cause` chain or `errors` (see createRedactor), so what a
   * boundary redacted stays redacted in a log line that prints the whole error, fields and
   * causes included. An error no redactor saw prints as Node prints it.
   */
  [inspectCustom](depth: number, options: object, inspect?: (value: unknown, options: object) => string): unknown {
    // Returning the error itself tells Node to print it the default way.
    if (typeof inspect !== "function" || printing.has(this) || !wasScrubbed(this)) return this;
    printing.add(this);
    try {
      return scrubInspected(this, inspect(this, { ...options, depth }));
    } finally {
      printing.delete(this);
    }
  }
}

/** A declaration (agent, tool, capability) is malformed; thrown when it is declared. */
export class DeclarationError extends CastellanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("invalid_declaration", message, options);
  }
}

/** True for any error raised by Castellan, optionally of one code. */
export function isCastellanError(error: unknown, code?: CastellanErrorCode): error is CastellanError {
  return error instanceof CastellanError && (code === undefined || error.code === code);
}

/** A resource was read before its Session acquired it (for example while projecting in a test). */
export class ResourcePendingError extends CastellanError {
  /** The binding kind's name. */
  readonly resourceKind: string;

  constructor(resourceKind: string) {
    super("resource_pending", `The ${resourceKind} resource is not acquired yet; it is acquired when a Session opens.`);
    this.resourceKind = resourceKind;
  }
}
