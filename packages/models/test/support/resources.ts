import { expect } from "vitest";

/** Sockets and timers this process holds. */
export function activeResources(): { sockets: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return {
    sockets: info.filter((name) => name === "TCPSocketWrap").length,
    timers: info.filter((name) => name === "Timeout").length,
  };
}

/** Active timers of this process. */
export function activeTimers(): number {
  return activeResources().timers;
}

/** Asserts nothing was added since `before` (other tests' timers may have ended meanwhile). */
export function expectNoLeak(before: { sockets: number; timers: number }): void {
  const after = activeResources();
  expect(after.sockets).toBeLessThanOrEqual(before.sockets);
  expect(after.timers).toBeLessThanOrEqual(before.timers);
}

/** Lets close callbacks that are already due run (handles leave the list in their close callback). */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}
