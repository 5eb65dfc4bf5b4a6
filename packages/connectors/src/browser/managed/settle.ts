import type { ManagedTab } from "./tab.js";

const pollMs = 20;

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits after an action for what it set off on the active tab: a frame turn so a click's
 * navigation reaches the network, then any top-level navigation until its document is parsed.
 * Bounded by `timeoutMs`; a page still loading after it is observed as it is.
 */
export async function settleAfterAction(tab: ManagedTab, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const page = tab.page;
  // A rendered frame: input handlers ran and the navigations they started were requested.
  await Promise.race([
    page
      .evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))))
      .catch(() => {}),
    delay(250, signal),
  ]);
  const deadline = Date.now() + timeoutMs;
  while (tab.navigating && !tab.closed && Date.now() < deadline) await delay(pollMs, signal);
  if (tab.closed) return;
  await page.waitForLoadState("domcontentloaded", { timeout: Math.max(1, deadline - Date.now()) }).catch(() => {});
}
