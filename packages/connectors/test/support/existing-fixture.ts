// The pages and processes one existing-tab test file shares: a Chromium, a logging proxy in
// front of it, a connection through the proxy, a side client, and two loopback Origins.
import type { BrowserOperationOptions } from "@castellan/node-runner";
import { ExistingChromeConnection, type ExistingChromeGrant } from "../../src/browser/existing/index.js";
import { type CdpProxy, startCdpProxy } from "./existing-cdp-proxy.ts";
import { type RunningChromium, SideClient, startChromium } from "./existing-chromium.ts";
import { type PageServer, startPageServer } from "./existing-pages.ts";

/** Everything a test file uses, started once. */
export interface ExistingFixture {
  readonly chromium: RunningChromium;
  readonly proxy: CdpProxy;
  readonly connection: ExistingChromeConnection;
  readonly side: SideClient;
  /** The granted Origin, 127.0.0.1. */
  readonly site: PageServer;
  /** The second Origin, 127.0.0.2. */
  readonly other: PageServer;
  /** Opens `path` of `site` in a new tab and grants it. */
  grantPage(
    path: string,
    options?: { actionTimeoutMs?: number },
  ): Promise<{ grant: ExistingChromeGrant; targetId: string }>;
  stop(): Promise<void>;
}

/** Operation options with a live signal. */
export function live(): BrowserOperationOptions {
  return { signal: new AbortController().signal };
}

/**
 * Starts the file's fixture: `pages` gives each server its pages (path → HTML), knowing both
 * Origins. The connection goes through the logging proxy.
 */
export async function startExistingFixture(
  pages: (origins: { site: string; other: string }) => {
    site: Record<string, string | (() => string)>;
    other: Record<string, string | (() => string)>;
  },
): Promise<ExistingFixture> {
  const chromium = await startChromium();
  const stops: (() => Promise<unknown>)[] = [() => chromium.stop()];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    // The pages name both Origins, so the servers start first and are given their pages after.
    const sitePages: Record<string, string | (() => string)> = {};
    const otherPages: Record<string, string | (() => string)> = {};
    const other = await startPageServer("127.0.0.2", otherPages);
    stops.push(() => other.close());
    const site = await startPageServer("127.0.0.1", sitePages);
    stops.push(() => site.close());
    const content = pages({ site: site.origin, other: other.origin });
    Object.assign(sitePages, content.site);
    Object.assign(otherPages, content.other);
    const proxy = await startCdpProxy(chromium.endpoint);
    stops.push(() => proxy.close());
    const side = await SideClient.open(chromium.endpoint);
    stops.push(() => side.close());
    const connection = await ExistingChromeConnection.connect({ endpoint: proxy.endpoint });
    stops.push(() => connection.close());
    return {
      chromium,
      proxy,
      connection,
      side,
      site,
      other,
      async grantPage(path, options) {
        const targetId = await side.openTab(`${site.origin}${path}`);
        const tab = (await connection.listTabs()).find((entry) => entry.targetId === targetId);
        if (!tab) throw new Error(`tab ${targetId} is not listed`);
        return { grant: connection.grant(tab, options), targetId };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
