import type { JsonValue } from "@castellan/harness";

/**
 * Where the Runner puts, on each capability hook's scope, the function that queues a write of
 * that capability's reserved state keys through the host-write queue (saved now, applied at the
 * next turn's start, before its projection). Internal: only Castellan's own capabilities own
 * reserved keys, and the Runner refuses any other key.
 */
export const queueReservedStateField: unique symbol = Symbol.for("castellan.queue-reserved-state") as never;

/** The queue function on a hook's scope, or undefined outside a Runner. */
export function reservedStateQueueOf(
  scope: unknown,
): ((changes: Readonly<Record<string, JsonValue>>) => Promise<void>) | undefined {
  const queue = (scope as { [queueReservedStateField]?: unknown } | null)?.[queueReservedStateField];
  return typeof queue === "function"
    ? (queue as (changes: Readonly<Record<string, JsonValue>>) => Promise<void>)
    : undefined;
}
