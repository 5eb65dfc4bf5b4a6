// A refusal never points at a remedy that is itself refused: a click that takes the page to an
// Origin the Session has not admitted suggests `browser_navigate { newTab: true }` only where
// the declared Origins would admit it, and where they would not, says no browser tool can open
// it. Driven through the model's own tool calls on a scripted model, managed Chromium.
import { maxBrowserTabs } from "@castellan/node-runner";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding } from "../../../test-support/system-programs.ts";
import { browser } from "../src/browser/index.ts";
import { pageOriginNotAdmitted } from "../src/browser/managed/not-admitted.ts";
import { chromiumPath } from "./support/chromium.ts";
import { TestAdmitted } from "./support/managed.ts";
import { startServer, type TestServer } from "./support/servers.ts";
import { call, capabilityRunner, lastToolText, runToEnd } from "./support/session.ts";

let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startServer("127.0.0.1");
  b = await startServer("127.0.0.2");
  b.page("/landing", "<title>Landing</title><p>landed</p>");
});

afterAll(async () => {
  await a?.close();
  await b?.close();
});

/** The text of each tool result, in order, of a Session whose model makes `calls`. */
async function toolTexts(origins: readonly string[], calls: ReturnType<typeof call>[]): Promise<string[]> {
  const capability = browser({ mode: "managed", executablePath: chromiumPath, actionTimeoutMs: 5_000, origins });
  const { runner, model } = await capabilityRunner(capability, [...calls, { text: "done" }]);
  try {
    const session = await runner.createSession();
    await runToEnd(session);
    await session.close();
    return model.requests.slice(1).map((request) => lastToolText(request));
  } finally {
    await runner.close();
    await capability.close();
  }
}

describeNeeding(["chromium"], "the remedy of a page's refused move to another Origin", () => {
  it("outside the declared Origins: names no browser tool, and the newTab it no longer suggests is refused", async () => {
    a.page("/leave", `<title>Leave</title><a href="${b.origin}/landing">Out</a>`);
    const [, clicked, retried] = await toolTexts(
      [a.origin],
      [
        call("browser_navigate", { url: `${a.origin}/leave` }),
        call("browser_click", { role: "link", name: "Out" }),
        call("browser_navigate", { url: `${b.origin}/landing`, newTab: true }),
      ],
    );
    expect(clicked).toMatch(/^browser_origin_not_admitted/);
    expect(clicked).toContain(b.origin);
    expect(clicked).toContain("no browser tool can open it");
    expect(clicked).not.toContain("newTab");
    expect(clicked).not.toContain("browser_navigate");
    // What the old remedy suggested fails: the reason it is no longer suggested.
    expect(retried).toMatch(/^browser_origin_not_admitted/);
    expect(b.requests).toEqual([]);
  });

  it("inside the declared Origins: suggests the new tab, and following it is admitted", async () => {
    a.page("/leave-listed", `<title>Leave</title><a href="${b.origin}/landing">Out</a>`);
    const [, clicked, followed] = await toolTexts(
      [a.origin, b.origin],
      [
        call("browser_navigate", { url: `${a.origin}/leave-listed` }),
        call("browser_click", { role: "link", name: "Out" }),
        call("browser_navigate", { url: `${b.origin}/landing`, newTab: true }),
      ],
    );
    expect(clicked).toMatch(/^browser_origin_not_admitted/);
    expect(clicked).toContain("browser_navigate { url, newTab: true }");
    expect(followed).not.toMatch(/^browser_/);
    expect(followed).toContain("landed");
  });
});

it("with every tab taken, suggests navigating in the current tab rather than a new one it would refuse", () => {
  const admitted = new TestAdmitted();
  const origin = "http://127.0.0.2:4000";
  expect(pageOriginNotAdmitted(origin, admitted, maxBrowserTabs - 1).message).toContain("newTab: true");
  const full = pageOriginNotAdmitted(origin, admitted, maxBrowserTabs).message;
  expect(full).toContain("browser_navigate { url } in this tab");
  expect(full).not.toContain("newTab: true");
  admitted.declared = new Set(["http://127.0.0.1:4000"]);
  const outside = pageOriginNotAdmitted(origin, admitted, 1);
  expect(outside.code).toBe("browser_origin_not_admitted");
  expect(outside.message).not.toContain("browser_navigate");
});
