import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding } from "../../../test-support/system-programs.ts";
import { type DirectBrowser, openDirect, refOf, role } from "./support/managed.ts";
import { startServer, type TestServer } from "./support/servers.ts";

let a: TestServer;
let browser: DirectBrowser;

const rows = `<title>Rows</title><main>
  <section aria-label="First row"><h2>First</h2><button onclick="log.textContent='deleted first'">Delete</button></section>
  <section aria-label="Second row"><h2>Second</h2><button onclick="log.textContent='deleted second'">Delete</button></section>
  <button aria-label="" onclick="log.textContent='unnamed'"></button>
  <p id=log></p></main>`;

beforeAll(async () => {
  a = await startServer();
  a.page("/rows", rows);
  a.page("/other", "<title>Other</title><button>Delete</button>");
  browser = await openDirect();
});

afterAll(async () => {
  await browser?.close();
  await a?.close();
});

describeNeeding(["chromium"], "managed targets", () => {
  it("refuses two matches as ambiguous with the count and advice", async () => {
    await browser.goto(`${a.origin}/rows`);
    const error = await browser.act({ kind: "click", target: role("button", "Delete") }).catch((caught) => caught);
    expect(error).toMatchObject({ code: "browser_target_ambiguous" });
    expect(error.message).toMatch(/^2 elements/);
    expect(error.message).toMatch(/ref/);
    expect(error.message).toMatch(/within/);
  });

  it("acts on the latest ref, and refuses a ref with a wrong name", async () => {
    const observed = await browser.goto(`${a.origin}/rows`);
    const second = refOf(observed.snapshot, /button "Delete"/, 1);
    const after = await browser.act({ kind: "click", target: role("button", "Delete", { ref: second }) });
    expect(after.snapshot).toContain("deleted second");
    const ref = refOf(after.snapshot, /button "Delete"/, 0);
    await expect(browser.act({ kind: "click", target: role("button", "Remove", { ref }) })).rejects.toMatchObject({
      code: "browser_ref_mismatch",
    });
    const heading = refOf(after.snapshot, /heading "First"/);
    await expect(
      browser.act({ kind: "click", target: role("button", "Delete", { ref: heading }) }),
    ).rejects.toMatchObject({
      code: "browser_ref_mismatch",
    });
  });

  it("scopes within a named region and an unnamed main, and never widens a missing scope", async () => {
    await browser.goto(`${a.origin}/rows`);
    const first = await browser.act({
      kind: "click",
      target: role("button", "Delete", { within: { role: "region", name: "First row" } }),
    });
    expect(first.snapshot).toContain("deleted first");
    await expect(
      browser.act({ kind: "click", target: role("button", "Delete", { within: { role: "main" } }) }),
    ).rejects.toMatchObject({ code: "browser_target_ambiguous" });
    const unnamed = await browser.act({
      kind: "click",
      target: role("button", "", { exact: true, within: { role: "main" } }),
    });
    expect(unnamed.snapshot).toContain("unnamed");
    await expect(
      browser.act({
        kind: "click",
        target: role("button", "Delete", { within: { role: "region", name: "Third row" } }),
      }),
    ).rejects.toMatchObject({ code: "browser_scope_not_found" });
    await expect(
      browser.act({ kind: "click", target: role("button", "Delete", { within: { role: "region" } }) }),
    ).rejects.toMatchObject({ code: "browser_scope_ambiguous" });
  });

  it("matches names case-insensitively by substring by default, exactly with exact", async () => {
    await browser.goto(`${a.origin}/rows`);
    const loose = await browser.act({
      kind: "click",
      target: role("button", "delete", { within: { role: "region", name: "second" } }),
    });
    expect(loose.snapshot).toContain("deleted second");
    await expect(
      browser.act({
        kind: "click",
        target: role("button", "delete", { exact: true, within: { role: "region", name: "Second row" } }),
      }),
    ).rejects.toMatchObject({ code: "browser_target_not_found" });
  });
});
