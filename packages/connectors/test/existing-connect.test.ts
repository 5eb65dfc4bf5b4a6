import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding } from "../../../test-support/system-programs.ts";
import { checkEndpoint, ExistingChromeConnection, isExistingChromeError } from "../src/browser/existing/index.js";
import { type CdpProxy, startCdpProxy } from "./support/existing-cdp-proxy.ts";
import { type RunningChromium, SideClient, startChromium } from "./support/existing-chromium.ts";
import { type PageServer, startPageServer } from "./support/existing-pages.ts";

let chromium: RunningChromium;
let side: SideClient;
let site: PageServer;
let tabId: string;

beforeAll(async () => {
  chromium = await startChromium();
  side = await SideClient.open(chromium.endpoint);
  site = await startPageServer("127.0.0.1", { "/": "<title>Picker page</title><p>Hello</p>" });
  tabId = await side.openTab(`${site.origin}/`);
});

afterAll(async () => {
  await side?.close();
  await chromium?.stop();
  await site?.close();
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isExistingChromeError(error)) throw new Error(`expected an ExistingChromeError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

describeNeeding(["chromium"], "endpoints", () => {
  it("accepts only a loopback ws:// browser-level URL", async () => {
    expect(checkEndpoint("ws://127.0.0.1:9222/devtools/browser/abc")).toBe("ws://127.0.0.1:9222/devtools/browser/abc");
    expect(checkEndpoint("ws://127.4.5.6:9222/devtools/browser/abc")).toContain("127.4.5.6");
    expect(checkEndpoint("ws://[::1]:9222/devtools/browser/abc")).toContain("[::1]");
    expect(checkEndpoint("ws://localhost:9222/devtools/browser/abc")).toContain("localhost");
    for (const endpoint of [
      "ws://192.168.1.2:9222/devtools/browser/abc",
      "ws://example.com:9222/devtools/browser/abc",
      "wss://127.0.0.1:9222/devtools/browser/abc",
      "http://127.0.0.1:9222/devtools/browser/abc",
      "ws://127.0.0.1:9222/devtools/page/abc",
      "ws://user:secret@127.0.0.1:9222/devtools/browser/abc",
      "not a url",
    ]) {
      const { code } = await refusal(ExistingChromeConnection.connect({ endpoint }));
      expect(code, endpoint).toBe("existing_chrome_endpoint_refused");
    }
  });

  it("says remote debugging must already be on when the profile has no DevToolsActivePort", async () => {
    const directory = await mkdtemp(join(tmpdir(), "castellan-existing-empty-"));
    try {
      const { code, message } = await refusal(
        ExistingChromeConnection.connect({ profileDirectory: pathToFileURL(directory) }),
      );
      expect(code).toBe("existing_chrome_debugging_off");
      expect(message).toContain("remote debugging must already be on");
      expect(message).toContain("never turned on");
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("takes a profile directory only as a file: URL", async () => {
    const { code } = await refusal(ExistingChromeConnection.connect({ profileDirectory: "/tmp/some-profile" }));
    expect(code).toBe("existing_chrome_endpoint_refused");
  });

  it("refuses an unreachable endpoint with a typed error", async () => {
    const { code } = await refusal(
      ExistingChromeConnection.connect({ endpoint: "ws://127.0.0.1:1/devtools/browser/x" }),
    );
    expect(code).toBe("existing_chrome_unreachable");
  });

  it("stops at an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort(new Error("host stopped"));
    await expect(
      ExistingChromeConnection.connect({ endpoint: chromium.endpoint }, { signal: controller.signal }),
    ).rejects.toThrow("host stopped");
  });
});

describeNeeding(["chromium"], "connecting and listing tabs", () => {
  it("connects through the profile's DevToolsActivePort and lists the page tabs", async () => {
    const connection = await ExistingChromeConnection.connect({ profileDirectory: chromium.profileDirectory });
    try {
      const tabs = await connection.listTabs();
      expect(tabs).toContainEqual({ targetId: tabId, url: `${site.origin}/`, title: "Picker page" });
      expect(Object.keys(tabs[0]!).sort()).toEqual(["targetId", "title", "url"]);
    } finally {
      await connection.close();
    }
  });

  it("sends only target discovery to connect, list and grant", async () => {
    const proxy: CdpProxy = await startCdpProxy(chromium.endpoint);
    try {
      const connection = await ExistingChromeConnection.connect({ endpoint: proxy.endpoint });
      const tabs = await connection.listTabs();
      await connection.listTabs();
      const tab = tabs.find((entry) => entry.targetId === tabId)!;
      connection.grant(tab);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(proxy.commands.map((command) => command.method)).toEqual([
        "Target.setDiscoverTargets",
        "Target.getTargets",
        "Target.getTargets",
      ]);
      expect(proxy.commands[0]!.params).toEqual({ discover: true });
      await connection.close();
    } finally {
      await proxy.close();
    }
  });

  it("refuses to grant a tab that is not an HTTP(S) page, and an out-of-range timeout", async () => {
    const connection = await ExistingChromeConnection.connect({ endpoint: chromium.endpoint });
    try {
      const blank = (await connection.listTabs()).find((tab) => tab.url === "about:blank");
      expect(blank).toBeDefined();
      let error: unknown;
      try {
        connection.grant(blank!);
      } catch (caught) {
        error = caught;
      }
      expect(isExistingChromeError(error, "existing_chrome_tab_refused")).toBe(true);
      const page = (await connection.listTabs()).find((tab) => tab.targetId === tabId)!;
      expect(() => connection.grant(page, { actionTimeoutMs: 0 })).toThrow(RangeError);
    } finally {
      await connection.close();
    }
  });

  it("connection.close() closes the transport and leaves Chromium and its tabs open", async () => {
    const proxy = await startCdpProxy(chromium.endpoint);
    try {
      const connection = await ExistingChromeConnection.connect({ endpoint: proxy.endpoint });
      await connection.listTabs();
      expect(proxy.connections()).toBe(1);
      await connection.close();
      await connection.close();
      expect(connection.closed).toBe(true);
      await expect(connection.listTabs()).rejects.toMatchObject({ code: "existing_chrome_closed" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(proxy.connections()).toBe(0);
      expect(proxy.commands.map((command) => command.method)).not.toContain("Browser.close");
      expect(chromium.alive()).toBe(true);
      expect(await side.targetInfo(tabId)).toMatchObject({ url: `${site.origin}/`, title: "Picker page" });
    } finally {
      await proxy.close();
    }
  });
});
