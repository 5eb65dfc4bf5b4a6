import { setPriority } from "node:os";

let niceness = 0;

/**
 * Runs the processes that do a host's background work at `value` niceness (0 to 19, higher is
 * lower priority): its commands (through the spawn broker, whose children inherit it) and its
 * sandbox worker processes. Under a full CPU the host itself (its event loop: polls, watchdogs,
 * model streams) then gets the processor first. Default 0 (no change). Applies to brokers and
 * workers started after the call; `@castellan/executor` sets 10.
 *
 * @throws RangeError when `value` is not an integer from 0 to 19.
 */
export function setBackgroundPriority(value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 19) {
    throw new RangeError(`The background niceness must be an integer from 0 to 19, not ${String(value)}.`);
  }
  niceness = value;
}

/** The niceness background processes start with. */
export function backgroundPriority(): number {
  return niceness;
}

/** Lowers a started process to the background niceness; one that is already gone is left. */
export function applyBackgroundPriority(pid: number | undefined): void {
  if (niceness === 0 || pid === undefined) return;
  try {
    setPriority(pid, niceness);
  } catch {}
}
