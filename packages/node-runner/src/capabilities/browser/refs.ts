import { BrowserToolError } from "./errors.js";
import type { BrowserTarget } from "./types.js";

// The adapter marks elements `[ref=<adapterRef>]`; the model sees `[ref=<observationId>.<adapterRef>]`,
// so a ref names the one observation it came from and nothing in a later or restored one.
const marker = /\[ref=([^\]\s]+)\]/g;

/** Rewrites the adapter's `[ref=X]` markers of `snapshot` to `[ref=<observationId>.X]`. */
export function exposeRefs(snapshot: string, observationId: string): string {
  return snapshot.replace(marker, (_, ref: string) => `[ref=${observationId}.${ref}]`);
}

/** The exposed refs shown in `text` (after any cut), as adapter refs of `observationId`. */
export function shownRefs(text: string, observationId: string): ReadonlySet<string> {
  const prefix = `${observationId}.`;
  const refs = new Set<string>();
  for (const match of text.matchAll(marker)) {
    const ref = match[1] as string;
    if (ref.startsWith(prefix)) refs.add(ref.slice(prefix.length));
  }
  return refs;
}

/** The latest observation's id and the adapter refs it showed; undefined when there is none. */
export interface CurrentRefs {
  readonly observationId: string;
  readonly refs: ReadonlySet<string>;
}

/**
 * The target as the adapter gets it: the ref's observation prefix checked against the latest
 * observation and stripped. `browser_ref_stale` for a ref of any other observation.
 */
export function adapterTarget(target: BrowserTarget, current: CurrentRefs | undefined): BrowserTarget {
  if (target.ref === undefined) return target;
  const dot = target.ref.indexOf(".");
  const observationId = dot < 0 ? "" : target.ref.slice(0, dot);
  const ref = dot < 0 ? "" : target.ref.slice(dot + 1);
  if (current === undefined || observationId !== current.observationId || !current.refs.has(ref)) {
    throw new BrowserToolError(
      "browser_ref_stale",
      `ref ${JSON.stringify(target.ref)} is not from the latest observation; call browser_snapshot with no arguments and use a ref it shows, or omit ref.`,
    );
  }
  return { ...target, ref };
}
