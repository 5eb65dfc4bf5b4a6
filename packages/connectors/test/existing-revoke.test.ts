import { isBrowserToolError } from "@castellan/node-runner";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding, itNeeding } from "../../../test-support/system-programs.ts";
import { ExistingChromeConnection } from "../src/browser/existing/index.js";
import { forbiddenMethods } from "./support/existing-cdp-proxy.ts";
import { type ExistingFixture, live, startExistingFixture } from "./support/existing-fixture.ts";

let fixture: ExistingFixture;

beforeAll(async () => {
  fixture = await startExistingFixture(({ other }) => ({
    site: {
      "/start": `<!doctype html><title>Start</title><a href="${other}/away">Leave</a>`,
      "/back": "<!doctype html><title>Back</title><h1>Back again</h1>",
    },
    other: { "/away": "<!doctype html><title>Away</title><h1>Elsewhere</h1>" },
  }));
});

afterAll(async () => {
  await fixture?.stop();
});

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isBrowserToolError(error)) throw new Error(`expected a BrowserToolError, got ${String(error)}`);
  return error.code;
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeNeeding(["chromium"], "revocation", () => {
  it("another client navigating the tab to another Origin revokes the grant, still revoked after it returns", async () => {
    const { grant, targetId } = await fixture.grantPage("/start");
    expect((await grant.observe(live())).title).toBe("Start");
    await fixture.side.navigate(targetId, `${fixture.other.origin}/away`);
    await until(() => grant.revoked);
    expect(await code(grant.observe(live()))).toBe("browser_grant_revoked");
    await fixture.side.navigate(targetId, `${fixture.site.origin}/back`);
    const from = fixture.proxy.commands.length;
    expect(await code(grant.observe(live()))).toBe("browser_grant_revoked");
    expect(
      await code(
        grant.navigate({ url: `${fixture.site.origin}/start`, origin: fixture.site.origin, newTab: false }, live()),
      ),
    ).toBe("browser_grant_revoked");
    // A revoked grant never attaches again.
    expect(fixture.proxy.commands.slice(from).map((command) => command.method)).toEqual([]);
    await grant.close();
    expect(await fixture.side.targetInfo(targetId)).toMatchObject({ title: "Back" });
  });

  it("a grant not yet acquired is revoked when the tab left its Origin and came back first", async () => {
    const { grant, targetId } = await fixture.grantPage("/start");
    await fixture.side.navigate(targetId, `${fixture.other.origin}/away`);
    await fixture.side.navigate(targetId, `${fixture.site.origin}/back`);
    expect(await code(grant.observe(live()))).toBe("browser_grant_revoked");
    await grant.close();
  });

  it("acquiring checks the tab is still at the picked Origin", async () => {
    const targetId = await fixture.side.openTab(`${fixture.site.origin}/start`);
    const picked = (await fixture.connection.listTabs()).find((tab) => tab.targetId === targetId)!;
    await fixture.side.navigate(targetId, `${fixture.other.origin}/away`);
    // The host grants the entry it listed before the tab moved.
    const grant = fixture.connection.grant(picked);
    expect(await code(grant.observe(live()))).toBe("browser_grant_revoked");
    await grant.close();
  });

  it("a click that takes the tab to another Origin is revoked, and nothing of that page is returned", async () => {
    const { grant } = await fixture.grantPage("/start");
    expect(await code(grant.act({ kind: "click", target: { role: "link", name: "Leave" } }, live()))).toBe(
      "browser_grant_revoked",
    );
    expect(await code(grant.observe(live()))).toBe("browser_grant_revoked");
    await grant.close();
  });

  it("closing the tab revokes the grant", async () => {
    const { grant, targetId } = await fixture.grantPage("/start");
    await grant.observe(live());
    await fixture.side.closeTab(targetId);
    await until(() => grant.revoked);
    expect(await code(grant.observe(live()))).toBe("browser_grant_revoked");
    await grant.close();
  });

  it("closing the connection revokes its grants and leaves Chromium and the tab open", async () => {
    const targetId = await fixture.side.openTab(`${fixture.site.origin}/start`);
    const connection = await ExistingChromeConnection.connect({ endpoint: fixture.proxy.endpoint });
    const grant = connection.grant((await connection.listTabs()).find((tab) => tab.targetId === targetId)!);
    expect((await grant.observe(live())).title).toBe("Start");
    await connection.close();
    expect(await code(grant.observe(live()))).toBe("browser_grant_revoked");
    await grant.close();
    expect(fixture.chromium.alive()).toBe(true);
    expect(await fixture.side.targetInfo(targetId)).toMatchObject({ title: "Start" });
  });
});

itNeeding(["chromium"], "never sent emulation, download, persistent-script or Browser commands", () => {
  // Last in the file: vitest runs a file's tests in the order they are declared.
  expect(forbiddenMethods(fixture.proxy.commands)).toEqual([]);
  expect(fixture.proxy.commands.some((command) => command.method === "Target.attachToTarget")).toBe(true);
});
