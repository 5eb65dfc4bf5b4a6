// Waiting for the granted tab's main frame to load, after Page.navigate or after an action
// that starts a navigation (a link click, a form submit). Page events are enabled on the
// operation's own session only and end with its detach.
import { guarded, type PageSession } from "./operation.js";

/** How long after an action a navigation it started is looked for. */
const navigationStartMs = 50;

/** Resolves on the next main-frame load event; `dispose` stops listening. */
export async function waitForLoad(page: PageSession): Promise<{ loaded: Promise<void>; dispose(): void }> {
  let resolve!: () => void;
  const loaded = new Promise<void>((settle) => {
    resolve = settle;
  });
  const dispose = page.onEvent((event) => {
    if (event.method === "Page.loadEventFired") resolve();
  });
  await page.send("Page.enable", {});
  return { loaded: guarded(loaded, page.signal), dispose };
}

/**
 * Watches for a main-frame navigation an action starts; `done` waits for it to load when one
 * started within 50 ms of the action, and returns at once otherwise.
 */
export async function settleNavigation(page: PageSession): Promise<{ done(): Promise<void>; dispose(): void }> {
  let started = false;
  let loadedAfterStart = false;
  let resolve!: () => void;
  const loaded = new Promise<void>((settle) => {
    resolve = settle;
  });
  let mainFrame: string | undefined;
  const dispose = page.onEvent((event) => {
    const params = event.params;
    if (event.method === "Page.frameStartedNavigating" && params.navigationType !== "sameDocument") {
      if (mainFrame === undefined || params.frameId === mainFrame) started = true;
    } else if (event.method === "Page.frameRequestedNavigation" && params.frameId === mainFrame) {
      started = true;
    } else if (event.method === "Page.loadEventFired" && started) {
      loadedAfterStart = true;
      resolve();
    }
  });
  await page.send("Page.enable", {});
  const { frameTree } = await page.send<{ frameTree: { frame: { id: string } } }>("Page.getFrameTree", {});
  mainFrame = frameTree.frame.id;
  return {
    async done() {
      await page.delay(navigationStartMs);
      if (started && !loadedAfterStart) await guarded(loaded, page.signal);
    },
    dispose,
  };
}
