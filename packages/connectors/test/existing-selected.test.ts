// The ten tools over a real selected tab: browser({ mode: "selected" }) with a granted
// ExistingChromeConnection tab, in a Session on the scripted model.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding, itNeeding } from "../../../test-support/system-programs.ts";
import { browser } from "../src/browser/index.ts";
import { forbiddenMethods } from "./support/existing-cdp-proxy.ts";
import { type ExistingFixture, startExistingFixture } from "./support/existing-fixture.ts";
import { call, capabilityRunner, lastToolText, runToEnd, toolResults } from "./support/session.ts";

let fixture: ExistingFixture;

beforeAll(async () => {
  fixture = await startExistingFixture(() => ({
    site: {
      "/rows": `<!doctype html><title>Rows</title>
        <style>.row .reveal { visibility: hidden } .row:hover .reveal { visibility: visible }</style>
        <main><h1>Rows</h1><ul><li class="row"><a href="#one">Row one</a>
        <button class="reveal" onclick="document.title = 'Deleted'">Delete row</button></li></ul></main>`,
      "/next": "<!doctype html><title>Next</title><h1>Next page</h1>",
    },
    other: {},
  }));
});

afterAll(async () => {
  await fixture?.stop();
});

describeNeeding(["chromium"], "browser({ mode: 'selected' }) on a granted Chrome tab", () => {
  it("snapshots first, hovers to reveal, clicks, navigates same-Origin, captures, and refuses tab switching", async () => {
    const targetId = await fixture.side.openTab(`${fixture.site.origin}/rows`);
    const tab = (await fixture.connection.listTabs()).find((entry) => entry.targetId === targetId)!;
    const capability = browser({ mode: "selected", connection: fixture.connection, tab, actionTimeoutMs: 5_000 });
    const { runner, model } = await capabilityRunner(capability, [
      call("browser_snapshot", {}),
      call("browser_hover", { role: "link", name: "Row one" }),
      call("browser_click", { role: "button", name: "Delete row" }),
      call("browser_navigate", { url: `${fixture.site.origin}/next` }),
      call("browser_capture", {}),
      call("browser_switch_tab", { tabId: "t1" }),
      { text: "done" },
    ]);
    const from = fixture.proxy.commands.length;
    try {
      const session = await runner.createSession();
      // Nothing is attached before the first operation.
      expect(fixture.proxy.commands.length).toBe(from);
      await runToEnd(session);
      const texts = toolResults(model.requests.at(-1)).map((message) =>
        message.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n"),
      );
      expect(texts[0]).toContain('link "Row one"');
      expect(texts[0]).not.toContain("Delete row");
      expect(texts[1]).toContain('button "Delete row"');
      expect(texts[2]).toContain("Deleted");
      expect(texts[3]).toContain("Next page");
      expect(texts[4]).toContain("[image]");
      expect(texts[5]).toContain("browser_unsupported");
      expect(lastToolText(model.requests.at(-1))).toContain("browser_unsupported");
      await session.close();
    } finally {
      await runner.close();
      await capability.close();
    }
    const attaches = fixture.proxy.commands.slice(from).filter((command) => command.method === "Target.attachToTarget");
    expect(attaches.length).toBe(5);
    expect(attaches.every((command) => command.params.targetId === targetId)).toBe(true);
    expect(fixture.chromium.alive()).toBe(true);
    expect(await fixture.side.targetInfo(targetId)).toMatchObject({ title: "Next" });
    expect(fixture.connection.closed).toBe(false);
  });
});

itNeeding(["chromium"], "never sent emulation, download, persistent-script or Browser commands", () => {
  // Last in the file: vitest runs a file's tests in the order they are declared.
  expect(forbiddenMethods(fixture.proxy.commands)).toEqual([]);
  expect(fixture.proxy.commands.some((command) => command.method === "Target.attachToTarget")).toBe(true);
});
