import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { itNeeding } from "../../../test-support/system-programs.ts";
import { aiSnapshotSeamModule, refLocator, takeAiSnapshot } from "../src/browser/managed/ai-snapshot.ts";
import { disabledChromiumFeatures, pinnedPlaywrightVersion } from "../src/browser/managed/launch-options.ts";
import { chromiumPath } from "./support/chromium.ts";
import { refOf } from "./support/managed.ts";

describe("the playwright-core seam", () => {
  it("is the pinned release", () => {
    const installed = JSON.parse(
      readFileSync(new URL("../../../node_modules/playwright-core/package.json", import.meta.url), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe(pinnedPlaywrightVersion);
    expect(pinnedPlaywrightVersion).toBe("1.64.1");
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(manifest.peerDependencies["playwright-core"]).toBe(pinnedPlaywrightVersion);
    expect(manifest.devDependencies["playwright-core"]).toBe(pinnedPlaywrightVersion);
  });

  itNeeding(
    ["chromium"],
    "has the recorded AI snapshot shape, and aria-ref resolves what role and name resolve",
    async () => {
      const { chromium } = await import("playwright-core");
      const launched = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
      try {
        const page = await launched.newPage();
        await page.setContent(`<title>Seam</title><main><button>Save</button><a href="#x">Docs</a></main>`);
        const snapshot = await takeAiSnapshot(page, { timeout: 5_000 });
        expect(snapshot).toMatch(/^- main \[ref=e\d+\]:$/m);
        expect(snapshot).toMatch(/^ {2}- button "Save" \[ref=e\d+\]$/m);
        expect(snapshot).toMatch(/^ {2}- link "Docs" \[ref=e\d+\]/m);
        const ref = refOf(snapshot, /button "Save"/);
        const viaRef = refLocator(page, ref);
        const viaRole = page.getByRole("button", { name: "Save" });
        expect(await viaRef.count()).toBe(1);
        expect(await viaRef.and(viaRole).count()).toBe(1);
        expect(await viaRef.evaluate((element) => element.outerHTML)).toBe(
          await viaRole.evaluate((element) => element.outerHTML),
        );
      } finally {
        await launched.close();
      }
    },
  );

  it("names the seam module when the snapshot's shape changes", async () => {
    const fake = { ariaSnapshot: async () => ({ full: "- button" }) } as unknown as Page;
    const error = await takeAiSnapshot(fake, { timeout: 1_000 }).catch((caught) => caught);
    expect(error).toMatchObject({ code: "browser_unavailable" });
    expect(error.message).toContain(aiSnapshotSeamModule);
    expect(error.message).toContain("ai-snapshot.ts");
  });

  it("keeps every feature the pinned release disables when it adds its own", () => {
    const bundle = readFileSync(
      new URL("../../../node_modules/playwright-core/lib/coreBundle.js", import.meta.url),
      "utf8",
    );
    const list = /disabledFeatures = \[([\s\S]*?)\]\.filter/.exec(bundle)?.[1] ?? "";
    const theirs = [...list.matchAll(/^\s*"([A-Za-z]+)"/gm)].map((match) => match[1]);
    expect(theirs.length).toBeGreaterThan(10);
    expect(disabledChromiumFeatures.filter((feature) => feature !== "LocalNetworkAccessChecks")).toEqual(theirs);
  });
});
