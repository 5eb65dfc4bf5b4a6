/** Waits `count` macrotask turns (setImmediate), so other queued work (timers excluded) gets to run meanwhile. */
export async function macrotasks(count = 1): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}
