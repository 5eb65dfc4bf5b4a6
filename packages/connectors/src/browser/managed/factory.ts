import type { BrowserSession, BrowserSessionFactory, BrowserSessionOpenRequest } from "@castellan/node-runner";
import { launchBrowser } from "./launch.js";
import type { ManagedBrowserConfig } from "./launch-options.js";
import { ManagedBrowserSession } from "./session.js";

/**
 * The managed adapter: a `BrowserSessionFactory` whose `open` (called at a Session's first
 * approved navigate) imports playwright-core and launches one Chromium for that Session.
 */
export function createManagedBrowserFactory(config: ManagedBrowserConfig): BrowserSessionFactory {
  return Object.freeze({
    mode: "managed" as const,
    async open({ sessionId, signal, admittedOrigins }: BrowserSessionOpenRequest): Promise<BrowserSession> {
      const launched = await launchBrowser(config, sessionId, signal);
      try {
        signal.throwIfAborted();
        return await ManagedBrowserSession.create(launched, config, admittedOrigins);
      } catch (error) {
        await launched.close();
        throw error;
      }
    },
  });
}
