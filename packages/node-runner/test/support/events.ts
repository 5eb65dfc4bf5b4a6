import type { RunEvent } from "@castellan/harness";
import type { Run } from "../../src/index.js";

/** What iterating a Run to its end gave: its events, and what its result rejected with (undefined if it resolved). */
export interface Drained {
  readonly events: RunEvent[];
  readonly error: unknown;
}

/** Collects a Run's events to its end; `onEvent` may act on them (e.g. abort) as they arrive. */
export async function collect(run: AsyncIterable<RunEvent>, onEvent?: (event: RunEvent) => void): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run) {
    events.push(event);
    onEvent?.(event);
  }
  return events;
}

/** Iterates a Run to its end and settles its result, never throwing. */
export async function drain(run: Run): Promise<Drained> {
  const events = await collect(run);
  const error = await run.result.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { events, error };
}
