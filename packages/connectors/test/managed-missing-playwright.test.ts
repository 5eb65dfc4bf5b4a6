import { describe, expect, it, vi } from "vitest";

vi.mock("playwright-core", () => {
  throw new Error("Cannot find package 'playwright-core'");
});

describe("without playwright-core", () => {
  it("imports the connector, declares the capability, and fails the first navigate with the install hint", async () => {
    const { browser } = await import("../src/browser/index.ts");
    const { createManagedBrowserFactory } = await import("../src/browser/managed/factory.ts");
    expect(browser({ mode: "managed", executablePath: "/usr/bin/chromium" }).tools).toHaveLength(10);
    const factory = createManagedBrowserFactory({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: [],
      actionTimeoutMs: 1_000,
      navigationTimeoutMs: 1_000,
      viewport: { width: 1280, height: 720 },
      resourceAccess: "same-origin",
    });
    const error = await factory
      .open({
        sessionId: "s",
        signal: AbortSignal.timeout(5_000),
        admittedOrigins: { has: () => false, list: () => [], admissible: () => true },
      })
      .catch((caught) => caught);
    expect(error).toMatchObject({ code: "browser_unavailable" });
    expect(error.message).toContain("npm install playwright-core@1.64.1");
  });
});
