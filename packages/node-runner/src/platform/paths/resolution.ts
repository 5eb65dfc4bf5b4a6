// Internal to platform/paths: what each resolved value was validated as.
import type { FileIdentity } from "./identity.js";
import type { WorkspaceRoot } from "./root.js";
import type { CheckedDirectory } from "./walk.js";

/** What a resolution is for; each kind is accepted only by the functions made for it. */
export type ResolutionPurpose = "read" | "write" | "directory";

/**
 * What a resolution validated, kept out of reach of callers so a resolved value cannot be
 * forged or edited into pointing elsewhere. Internal to this folder.
 */
export interface ResolutionState {
  readonly purpose: ResolutionPurpose;
  readonly root: WorkspaceRoot;
  /** The workspace path as given, for messages. */
  readonly path: string;
  /** The root and the target's existing ancestors, to check again before use. */
  readonly directories: readonly CheckedDirectory[];
  /** Absolute path of the target (for a read through a link: of the file it resolves to). */
  readonly absolute: string;
  /** The target as validated; undefined when it does not exist yet (a new file). */
  readonly identity: FileIdentity | undefined;
  /** The existing target's size and change time when validated: a rewrite refuses a file changed since. */
  readonly version: { readonly size: number; readonly ctimeMs: number } | undefined;
  /** Permission bits of the existing target, kept by a rewrite. */
  readonly mode: number | undefined;
  /** Ancestors to create before writing a new file, outermost first. */
  readonly missing: readonly { readonly absolute: string; readonly path: string }[];
  /** Set once a write target has been written or deleted. */
  used: boolean;
}

const states = new WeakMap<object, ResolutionState>();

/** Freezes `value` and records what it was validated as. */
export function remember<T extends object>(value: T, state: ResolutionState): Readonly<T> {
  const frozen = Object.freeze(value);
  states.set(frozen, state);
  return frozen;
}

/** The state behind a resolved value; a `TypeError` for a value not resolved by this layer for `purposes`. */
export function stateOf(value: object, purposes: readonly ResolutionPurpose[], caller: string): ResolutionState {
  const state = states.get(value);
  if (!state || !purposes.includes(state.purpose)) {
    throw new TypeError(`${caller} takes the value returned by ${makers(purposes)}, unchanged.`);
  }
  return state;
}

function makers(purposes: readonly ResolutionPurpose[]): string {
  const names = { read: "resolveForRead", write: "resolveForWrite", directory: "resolveDirectory" };
  return purposes.map((purpose) => names[purpose]).join(" or ");
}
