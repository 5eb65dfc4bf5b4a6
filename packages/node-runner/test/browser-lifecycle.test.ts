// The browser's lifetime: nothing opens before an approved navigate; one browser per Session
// across Runs; closeSession, sessionEnd and close() end it; history restores nothing.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent, hostTool, type ModelRequest } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createBrowserSessionToolsWith } from "../src/capabilities/browser/browser-session-tools.js";
import { nodeCaptureFiles } from "../src/capabilities/browser/capture-file.js";
import {
  createBrowserSessionPlugin,
  createBrowserSessionTools,
  createFileSessionStore,
  createNodeRunner,
  createOriginAuthority,
} from "../src/index.js";
import {
  browserRunner,
  call,
  fakePng,
  lastToolText,
  refIn,
  stubFactory,
  tabIdIn,
  toolResults,
} from "./browser-support.ts";
import { cleanupAfterEach, drain, latch, storePlugin, tempDirPerTest, textOf } from "./support/index.ts";

const cleanups = cleanupAfterEach();
const temp = tempDirPerTest("castellan-browser-lifecycle-");
const page = "http://127.0.0.1:4000/";

const longSnapshot = () =>
  Array.from({ length: 400 }, (_, index) => `- listitem "Row ${index}" [ref=e${index}]`).join("\n");

describe("the browser's lifetime", () => {
  it("opens nothing at Session open; the first navigate opens one browser that two Runs share", async () => {
    const factory = stubFactory();
    const { runner, model } = await browserRunner({
      factory,
      steps: [call("browser_navigate", { url: page }), { text: "one" }, call("browser_snapshot", {}), { text: "two" }],
    });
    cleanups.push(() => runner.close());
    const session = await runner.createSession();
    expect(factory.requests).toEqual([]);
    expect((await drain(session.run("first"))).error).toBeUndefined();
    expect((await drain(session.run("second"))).error).toBeUndefined();
    expect(factory.requests).toHaveLength(1);
    expect(factory.requests[0]?.sessionId).toBe(session.id);
    expect(factory.requests[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(factory.requests[0]?.admittedOrigins.list()).toEqual(["http://127.0.0.1:4000"]);
    expect(factory.opened[0]?.calls).toEqual([`navigate ${page}`, "observe"]);
    expect(lastToolText(model.requests[3] as ModelRequest)).toMatch(/^url: "http:\/\/127\.0\.0\.1:4000\/"/);
    await session.close();
    // sessionEnd ended it.
    expect(factory.opened[0]?.closed).toBe(1);
  });

  it("an Agent that declares two of the ten sees exactly those two", async () => {
    const model = scriptedModel([{ text: "looked" }]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.browser-two", {
        model,
        tools: [hostTool("browser_navigate"), hostTool("browser_snapshot")],
      }),
      permissions: "full-access",
      plugins: [createBrowserSessionPlugin({ origins: createOriginAuthority(), sessionFactory: stubFactory() })],
    });
    cleanups.push(() => runner.close());
    const session = await runner.createSession();
    expect((await drain(session.run("look"))).error).toBeUndefined();
    expect((model.requests[0] as ModelRequest).tools.map((tool) => tool.name)).toEqual([
      "browser_navigate",
      "browser_snapshot",
    ]);
    await session.close();
  });

  it("closing the Runner ends an open Session's browser once", async () => {
    const factory = stubFactory();
    const { runner } = await browserRunner({
      factory,
      steps: [call("browser_navigate", { url: page }), { text: "ok" }],
    });
    const session = await runner.createSession();
    await drain(session.run("go"));
    await runner.close();
    expect(factory.opened.map((browser) => browser.closed)).toEqual([1]);
  });

  it("passes the Run's abort to the operation", async () => {
    const factory = stubFactory();
    const started = latch();
    factory.behaviour.hold = async (operation, signal) => {
      if (operation !== "act") return;
      started.resolve();
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      throw new Error("aborted by the Run");
    };
    const { runner } = await browserRunner({
      factory,
      steps: [call("browser_navigate", { url: page }), call("browser_press_key", { key: "Enter" }), { text: "unused" }],
    });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());
    const controller = new AbortController();
    const run = session.run("go", { signal: controller.signal });
    const drained = drain(run);
    await started.promise;
    const signal = factory.opened[0]?.signals[1];
    expect(signal?.aborted).toBe(false);
    controller.abort();
    await drained;
    expect(signal?.aborted).toBe(true);
  });

  it("closeSession ends the Session's browser (idempotent); the next navigate opens a fresh one", async () => {
    const factory = stubFactory();
    const owner = createBrowserSessionTools({ origins: createOriginAuthority(), sessionFactory: factory });
    const model = scriptedModel([
      call("browser_navigate", { url: page }),
      { text: "one" },
      (request) =>
        call("browser_click", { role: "button", name: "Delete", ref: refIn(lastToolText(request)) }) as never,
      call("browser_navigate", { url: page }),
      { text: "two" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.browser-owner", { model, tools: owner.tools }),
      permissions: "full-access",
    });
    cleanups.push(() => runner.close());
    cleanups.push(() => owner.close());
    const session = cleanups.closeLater(await runner.createSession());
    await drain(session.run("first"));
    await owner.closeSession(session.id);
    await owner.closeSession(session.id);
    expect(factory.opened[0]?.closed).toBe(1);
    await drain(session.run("second"));
    const results = toolResults(model.requests.at(-1));
    expect(textOf(results[1])).toMatch(/^browser_not_open: /);
    expect(results[2]?.isError).toBe(false);
    expect(factory.opened).toHaveLength(2);
    expect(factory.opened[1]?.calls).toEqual([`navigate ${page}`]);
  });

  it("close() during a slow savePath write resolves after the file is complete; later calls are browser_closed", async () => {
    const factory = stubFactory({ png: fakePng(800, 600, 50_000) });
    const writing = latch();
    const release = latch();
    const owner = createBrowserSessionToolsWith(
      {
        origins: createOriginAuthority(),
        sessionFactory: factory,
        captureWorkspaceRoot: pathToFileURL(`${temp.path}/`),
      },
      {
        async writeAtomically(file, bytes) {
          writing.resolve();
          await release.promise;
          await nodeCaptureFiles.writeAtomically(file, bytes);
        },
      },
    );
    const model = scriptedModel([
      call("browser_navigate", { url: page }),
      call("browser_capture", { savePath: "shot.png" }),
      { text: "one" },
      call("browser_snapshot", {}),
      { text: "two" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.browser-owner", { model, tools: owner.tools }),
      permissions: "full-access",
    });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());
    const first = drain(session.run("capture"));
    await writing.promise;
    let closed = false;
    const closing = owner.close().then(async () => {
      closed = true;
      return (await stat(join(temp.path, "shot.png"))).size;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(false);
    release.resolve();
    expect(await closing).toBe(50_000);
    expect(factory.opened[0]?.closed).toBe(1);
    await first;
    expect((await readFile(join(temp.path, "shot.png"))).equals(Buffer.from(factory.behaviour.png))).toBe(true);
    await drain(session.run("again"));
    expect(textOf(toolResults(model.requests.at(-1)).at(-1))).toMatch(/^browser_closed: /);
    expect(factory.opened).toHaveLength(1);
    await owner.close();
  });

  it("a reopened Session has no browser until a navigate, and refuses old refs, tab ids and continuations", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const first = stubFactory({ snapshot: longSnapshot });
    const before = await browserRunner({
      factory: first,
      steps: [call("browser_navigate", { url: page }), { text: "seen" }],
      plugins: [storePlugin(store)],
    });
    const opened = await before.runner.createSession({ id: "browser-reopen" });
    await drain(opened.run("look"));
    const seen = lastToolText(before.model.requests[1] as ModelRequest);
    await before.runner.close();
    expect(first.opened[0]?.closed).toBe(1);

    const ref = refIn(seen);
    const tabId = tabIdIn(seen);
    const continuation = JSON.parse((seen.match(/browser_snapshot with (\{.*\})\]/) as RegExpMatchArray)[1] as string);
    const oldCalls = [
      call("browser_click", { role: "listitem", name: "Row 0", ref }),
      call("browser_switch_tab", { tabId }),
      call("browser_snapshot", continuation),
    ];
    const second = stubFactory({ snapshot: longSnapshot });
    const after = await browserRunner({
      factory: second,
      steps: [...oldCalls, call("browser_navigate", { url: page }), ...oldCalls, { text: "done" }],
      plugins: [storePlugin(store)],
    });
    cleanups.push(() => after.runner.close());
    const reopened = cleanups.closeLater(await after.runner.createSession({ id: "browser-reopen" }));
    expect(second.requests).toEqual([]);
    await drain(reopened.run("again"));
    const results = toolResults(after.model.requests.at(-1)).slice(-7);
    expect(results.map((result) => textOf(result).split(":")[0])).toEqual([
      "browser_not_open",
      "browser_not_open",
      "browser_not_open",
      "url",
      "browser_ref_stale",
      "browser_tab_unknown",
      "browser_continuation_stale",
    ]);
    expect(second.opened).toHaveLength(1);
    expect(second.opened[0]?.calls).toEqual([`navigate ${page}`]);
  });
});
