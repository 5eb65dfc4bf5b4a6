// A full GC for the benches that run one before every timed loop.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** A full GC: `gc` when node runs with --expose-gc, else the flag set now; undefined when neither works. */
export function fullGc(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString("--expose-gc");
    // A new context sees the flag; the main one was created before it.
    return runInNewContext("gc") as () => void;
  } catch {
    return undefined;
  }
}
