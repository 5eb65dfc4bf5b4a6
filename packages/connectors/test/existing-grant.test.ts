import { type BrowserFocusedElement, isBrowserToolError } from "@castellan/node-runner";
import { PNG } from "pngjs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding } from "../../../test-support/system-programs.ts";
import { crossProcessFrameNote } from "../src/browser/existing/index.js";
import { forbiddenMethods, type LoggedCommand } from "./support/existing-cdp-proxy.ts";
import { type ExistingFixture, live, startExistingFixture } from "./support/existing-fixture.ts";

let fixture: ExistingFixture;

/**
 * The observation's focused element with its accessible name's whitespace collapsed and trimmed:
 * Chromium builds differ there (150 names `<label>Email <input></label>` "Email ", 156 "Email"),
 * and the snapshot the model reads shows the collapsed form either way.
 */
function focusedWithName(observation: { readonly focusedElement: BrowserFocusedElement | null }) {
  const element = observation.focusedElement;
  return element === null ? null : { ...element, name: element.name.replace(/\s+/g, " ").trim() };
}

const formPage = (other: string) => `<!doctype html><title>Form</title>
<style>.row .reveal { visibility: hidden } .row:hover .reveal { visibility: visible }</style>
<main>
  <h1>Orders</h1>
  <label>Email <input id="email" value="old"></label>
  <label>Size <select id="size"><option>Small</option><option>Large</option></select></label>
  <ul><li class="row"><a href="#one">Row one</a> <button class="reveal" onclick="document.title = 'Deleted'">Delete row</button></li></ul>
  <button disabled>Locked</button>
  <button id="counter" onclick="window.clicks = (window.clicks || 0) + 1; this.textContent = 'Pressed ' + window.clicks">Press me</button>
  <section aria-label="First"><button>Remove</button></section>
  <section aria-label="Second"><button>Remove</button></section>
  <iframe title="Local" srcdoc="<button onclick='parent.document.title = &quot;Framed&quot;'>Local frame button</button>"></iframe>
  <iframe title="Remote" src="${other}/frame"></iframe>
</main>
<script>
  window.events = [];
  const size = document.getElementById("size");
  size.addEventListener("input", () => events.push("input:" + size.value));
  size.addEventListener("change", () => events.push("change:" + size.value));
</script>`;

const dragPage = `<!doctype html><title>Drag</title>
<style>li { padding: 12px; margin: 4px; background: #ddd; list-style: none } #slider { position: relative; height: 40px; width: 300px; background: #eee }</style>
<ul id="list">
  <li draggable="true" aria-label="Alpha">Alpha</li>
  <li draggable="true" aria-label="Beta">Beta</li>
  <li draggable="true" aria-label="Gamma">Gamma</li>
</ul>
<div id="slider"><button id="knob" style="position:absolute;left:0">Knob</button><span role="status" aria-label="Far end" style="position:absolute;right:0">End</span></div>
<script>
  let dragged;
  for (const item of document.querySelectorAll("li")) {
    item.addEventListener("dragstart", (event) => { dragged = item; event.dataTransfer.setData("text/plain", item.textContent); });
    item.addEventListener("dragover", (event) => event.preventDefault());
    item.addEventListener("drop", (event) => { event.preventDefault(); item.after(dragged); });
  }
  window.pointer = [];
  const knob = document.getElementById("knob");
  knob.addEventListener("pointerdown", (event) => { window.pointer.push("down"); knob.setPointerCapture(event.pointerId); });
  knob.addEventListener("pointermove", (event) => { if (knob.hasPointerCapture(event.pointerId)) window.pointer.push("move"); });
  knob.addEventListener("pointerup", () => window.pointer.push("up"));
</script>`;

beforeAll(async () => {
  fixture = await startExistingFixture(({ other }) => ({
    site: {
      "/form": formPage(other),
      "/drag": dragPage,
      "/second": "<!doctype html><title>Second</title><h1>Second page</h1>",
      "/plain":
        "<!doctype html><title>Plain</title><body style='margin:0;background:rgb(10,200,30)'><h1>Plain</h1></body>",
    },
    other: { "/frame": "<!doctype html><button>Inside remote frame</button>", "/away": "<title>Away</title>" },
  }));
});

afterAll(async () => {
  await fixture?.stop();
});

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isBrowserToolError(error)) throw new Error(`expected a BrowserToolError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The commands logged since `from`, and checks they are one attach … detach of `targetId`. */
function oneAttachment(from: number, targetId: string, settledAt: number): LoggedCommand[] {
  const commands = fixture.proxy.commands.slice(from);
  const attaches = commands.filter((command) => command.method === "Target.attachToTarget");
  expect(attaches).toHaveLength(1);
  expect(attaches[0]!.params).toEqual({ targetId, flatten: true });
  const sessionId = attaches[0]!.result?.sessionId;
  expect(typeof sessionId).toBe("string");
  const detaches = commands.filter((command) => command.method === "Target.detachFromTarget");
  expect(detaches).toHaveLength(1);
  expect(detaches[0]!.params).toEqual({ sessionId });
  expect(detaches[0]!.answeredAt).toBeDefined();
  expect(detaches[0]!.answeredAt!).toBeLessThan(settledAt);
  // Page commands go to that session only, between the attach and the detach.
  for (const command of commands) {
    if (command.sessionId !== undefined) {
      expect(command.sessionId).toBe(sessionId);
      expect(command.sentAt).toBeGreaterThan(attaches[0]!.answeredAt!);
      expect(command.sentAt).toBeLessThan(detaches[0]!.sentAt);
    }
  }
  return commands;
}

describeNeeding(["chromium"], "observing a granted tab", () => {
  it("shows the tab's URL, title, only that tab, its viewport, focus and an outline with refs", async () => {
    const { grant, targetId } = await fixture.grantPage("/form");
    const observation = await grant.observe(live());
    const url = `${fixture.site.origin}/form`;
    expect(observation.url).toBe(url);
    expect(observation.title).toBe("Form");
    expect(observation.tabs).toEqual([{ tabId: targetId, url, title: "Form", active: true }]);
    const inner = await fixture.side.evaluate<{ width: number; height: number }>(
      targetId,
      "({ width: innerWidth, height: innerHeight })",
    );
    expect(observation.viewport).toEqual(inner);
    expect(observation.focusScope).toBe("accessibility-tree");
    expect(observation.snapshot).toMatch(/- heading "Orders" \[level=1\] \[ref=e\d+\]/);
    expect(observation.snapshot).toMatch(/- textbox "Email" \[ref=e\d+\]: old/);
    expect(observation.snapshot).toMatch(/- option "Small" \[selected\] \[ref=e\d+\]/);
    expect(observation.snapshot).toMatch(/- button "Locked" \[disabled\] \[ref=e\d+\]/);
    // Same-process iframe content is shown; the cross-process one on 127.0.0.2 is not, with the note.
    expect(observation.snapshot).toContain('button "Local frame button"');
    expect(observation.snapshot).not.toContain("Inside remote frame");
    expect(observation.snapshot).toMatch(/- iframe "Remote" \[ref=e\d+\] \[content not shown: another process\]/);
    expect(observation.notes).toEqual([crossProcessFrameNote]);
    expect(observation.snapshot).not.toContain("Delete row");
    await grant.close();
  });

  it("attaches once per operation and detaches before it settles, also when it fails", async () => {
    const { grant, targetId } = await fixture.grantPage("/form");
    const operations: (() => Promise<unknown>)[] = [
      () => grant.observe(live()),
      () => grant.act({ kind: "click", target: { role: "button", name: "Press me" } }, live()),
      () => grant.act({ kind: "click", target: { role: "button", name: "No such button" } }, live()),
      () =>
        grant.navigate({ url: `${fixture.site.origin}/second`, origin: fixture.site.origin, newTab: false }, live()),
      () => grant.capture({}, live()),
    ];
    for (const operation of operations) {
      const from = fixture.proxy.commands.length;
      await operation().catch(() => undefined);
      oneAttachment(from, targetId, fixture.proxy.tick());
    }
    await grant.close();
  });

  it("detaches a timed-out operation's session, even one attached after the timeout", async () => {
    const { grant, targetId } = await fixture.grantPage("/form");
    const slow = fixture.connection.grant(
      (await fixture.connection.listTabs()).find((tab) => tab.targetId === targetId)!,
      { actionTimeoutMs: 1 },
    );
    const from = fixture.proxy.commands.length;
    expect((await failure(slow.observe(live()))).code).toBe("browser_timeout");
    oneAttachment(from, targetId, fixture.proxy.tick());
    // Aborted while a page command is unanswered: it still detaches before it rejects.
    const aborted = new AbortController();
    const next = fixture.proxy.commands.length;
    const release = fixture.proxy.hold("Accessibility.getFullAXTree");
    const pending = grant.observe({ signal: aborted.signal });
    await until(() =>
      fixture.proxy.commands.slice(next).some((command) => command.method === "Accessibility.getFullAXTree"),
    );
    aborted.abort(new Error("run stopped"));
    await expect(pending).rejects.toThrow("run stopped");
    release();
    oneAttachment(next, targetId, fixture.proxy.tick());
    await grant.close();
    await slow.close();
  });

  it("runs two concurrent actions one after the other", async () => {
    const { grant, targetId } = await fixture.grantPage("/form");
    const from = fixture.proxy.commands.length;
    const press = { kind: "click", target: { role: "button", name: "Press" } } as const;
    const [first, second] = await Promise.all([grant.act(press, live()), grant.act(press, live())]);
    expect(first.snapshot).toContain('button "Pressed 1"');
    expect(second.snapshot).toContain('button "Pressed 2"');
    const commands = fixture.proxy.commands.slice(from);
    const attaches = commands.filter((command) => command.method === "Target.attachToTarget");
    const detaches = commands.filter((command) => command.method === "Target.detachFromTarget");
    expect(attaches).toHaveLength(2);
    expect(detaches).toHaveLength(2);
    expect(attaches[1]!.sentAt).toBeGreaterThan(detaches[0]!.answeredAt!);
    expect(await fixture.side.evaluate(targetId, "window.clicks")).toBe(2);
    await grant.close();
  });
});

describeNeeding(["chromium"], "acting on a granted tab", () => {
  it("reveals a hover-only control: click fails before the hover and works after it", async () => {
    const { grant } = await fixture.grantPage("/form");
    const deleteRow = { role: "button", name: "Delete row" };
    expect((await failure(grant.act({ kind: "click", target: deleteRow }, live()))).code).toBe(
      "browser_target_not_found",
    );
    const from = fixture.proxy.commands.length;
    const hovered = await grant.act({ kind: "hover", target: { role: "link", name: "Row one" } }, live());
    const mouse = (since: number) =>
      fixture.proxy.commands
        .slice(since)
        .filter((command) => command.method === "Input.dispatchMouseEvent")
        .map((command) => command.params.type);
    expect(mouse(from)).toEqual(["mouseMoved"]);
    const clickFrom = fixture.proxy.commands.length;
    expect(hovered.snapshot).toMatch(/- button "Delete row" \[ref=e\d+\]/);
    const clicked = await grant.act({ kind: "click", target: deleteRow }, live());
    expect(clicked.title).toBe("Deleted");
    expect(mouse(clickFrom)).toEqual(["mouseMoved", "mousePressed", "mouseReleased"]);
    // A control in a same-process iframe takes the same pointer input.
    const framed = await grant.act({ kind: "click", target: { role: "button", name: "Local frame button" } }, live());
    expect(framed.title).toBe("Framed");
    // Hover does not need an enabled control; click does.
    await grant.act({ kind: "hover", target: { role: "button", name: "Locked" } }, live());
    expect(
      (await failure(grant.act({ kind: "click", target: { role: "button", name: "Locked" } }, live()))).message,
    ).toContain("disabled");
    await grant.close();
  });

  it("fills, selects by label with input and change, and presses keys to the focused element", async () => {
    const { grant, targetId } = await fixture.grantPage("/form");
    const filled = await grant.act(
      { kind: "fill", target: { role: "textbox", name: "Email" }, value: "ada@example.org" },
      live(),
    );
    expect(filled.snapshot).toMatch(/textbox "Email" \[ref=e\d+\]: ada@example.org/);
    expect(focusedWithName(filled)).toEqual({ role: "textbox", name: "Email", value: "ada@example.org" });
    const selected = await grant.act(
      { kind: "select", target: { role: "combobox", name: "Size" }, label: "Large" },
      live(),
    );
    expect(selected.snapshot).toMatch(/option "Large" \[selected\]/);
    expect(await fixture.side.evaluate(targetId, "window.events")).toEqual(["input:Large", "change:Large"]);
    expect(
      (await failure(grant.act({ kind: "select", target: { role: "combobox", name: "Size" }, label: "Huge" }, live())))
        .code,
    ).toBe("browser_option_not_found");
    expect(
      (await failure(grant.act({ kind: "select", target: { role: "textbox", name: "Email" }, label: "x" }, live())))
        .code,
    ).toBe("browser_not_native_select");
    await grant.act({ kind: "click", target: { role: "textbox", name: "Email" } }, live());
    const tabbed = await grant.act({ kind: "key", key: "Tab" }, live());
    expect(focusedWithName(tabbed)).toMatchObject({ role: "combobox", name: "Size" });
    const back = await grant.act({ kind: "key", key: "Shift+Tab" }, live());
    expect(focusedWithName(back)).toMatchObject({ role: "textbox", name: "Email" });
    await grant.act({ kind: "key", key: "End" }, live());
    const typed = await grant.act({ kind: "key", key: "Shift+A" }, live());
    expect(focusedWithName(typed)).toEqual({ role: "textbox", name: "Email", value: "ada@example.orgA" });
    expect((await failure(grant.act({ kind: "key", key: "Hyper+Q" }, live()))).code).toBe("browser_action_failed");
    await grant.close();
  });

  it("resolves targets by role and name, within one ancestor and intersected with refs", async () => {
    const { grant } = await fixture.grantPage("/form");
    const observation = await grant.observe(live());
    const remove = { role: "button", name: "Remove" };
    const ambiguous = await failure(grant.act({ kind: "click", target: remove }, live()));
    expect(ambiguous.code).toBe("browser_target_ambiguous");
    expect(ambiguous.message).toContain("2 elements");
    const fresh = await grant.observe(live());
    const ref = /region "Second"[^\n]*\n\s+- button "Remove" \[ref=(e\d+)\]/.exec(fresh.snapshot)?.[1];
    expect(ref).toBeDefined();
    await grant.act({ kind: "click", target: { ...remove, ref: ref! } }, live());
    const latest = await grant.observe(live());
    const latestRef = /region "Second"[^\n]*\n\s+- button "Remove" \[ref=(e\d+)\]/.exec(latest.snapshot)?.[1];
    expect(
      (
        await failure(
          grant.act({ kind: "click", target: { role: "button", name: "Press me", ref: latestRef! } }, live()),
        )
      ).code,
    ).toBe("browser_ref_mismatch");
    await grant.act({ kind: "click", target: { ...remove, within: { role: "region", name: "First" } } }, live());
    expect(
      (await failure(grant.act({ kind: "click", target: { ...remove, within: { role: "navigation" } } }, live()))).code,
    ).toBe("browser_scope_not_found");
    expect(
      (await failure(grant.act({ kind: "click", target: { ...remove, within: { role: "region" } } }, live()))).code,
    ).toBe("browser_scope_ambiguous");
    expect(observation.snapshot).toContain('- button "Remove"');
    await grant.close();
  });

  it("drags with real pointer input: an HTML list reorders, a pointer-driven control moves", async () => {
    const { grant, targetId } = await fixture.grantPage("/drag");
    const reordered = await grant.act(
      { kind: "drag", source: { role: "listitem", name: "Alpha" }, target: { role: "listitem", name: "Gamma" } },
      live(),
    );
    expect(
      await fixture.side.evaluate(targetId, "[...document.querySelectorAll('li')].map((li) => li.textContent)"),
    ).toEqual(["Beta", "Gamma", "Alpha"]);
    expect(reordered.snapshot.indexOf('"Gamma"')).toBeLessThan(reordered.snapshot.indexOf('"Alpha"'));
    await grant.act(
      { kind: "drag", source: { role: "button", name: "Knob" }, target: { role: "status", name: "Far end" } },
      live(),
    );
    const pointer = await fixture.side.evaluate<string[]>(targetId, "window.pointer");
    expect(pointer[0]).toBe("down");
    expect(pointer).toContain("move");
    expect(pointer.at(-1)).toBe("up");
    await grant.close();
  });

  it("navigates within the granted Origin and refuses another, keeping the grant", async () => {
    const { grant } = await fixture.grantPage("/form");
    const second = await grant.navigate(
      { url: `${fixture.site.origin}/second`, origin: fixture.site.origin, newTab: false },
      live(),
    );
    expect(second.url).toBe(`${fixture.site.origin}/second`);
    expect(second.title).toBe("Second");
    expect(second.snapshot).toContain('heading "Second page"');
    const refused = await failure(
      grant.navigate(
        { url: `${fixture.other.origin}/away?token=secret`, origin: fixture.other.origin, newTab: false },
        live(),
      ),
    );
    expect(refused.code).toBe("browser_origin_not_admitted");
    expect(refused.message).not.toContain("secret");
    expect(fixture.other.requests.get("/away")).toBeUndefined();
    expect((await grant.observe(live())).title).toBe("Second");
    await grant.close();
  });
});

describeNeeding(["chromium"], "what a selected tab does not do", () => {
  it("fails each unsupported operation by name", async () => {
    const { grant } = await fixture.grantPage("/form");
    const from = fixture.proxy.commands.length;
    const newTab = await failure(
      grant.navigate({ url: `${fixture.site.origin}/second`, origin: fixture.site.origin, newTab: true }, live()),
    );
    expect(newTab).toMatchObject({ code: "browser_unsupported" });
    expect(newTab.message).toContain("newTab");
    const switched = await failure(grant.switchTab("other", live()));
    expect(switched).toMatchObject({ code: "browser_unsupported" });
    expect(switched.message).toContain("browser_switch_tab");
    for (const [request, name] of [
      [{ width: 800, height: 600 }, "width, height"],
      [{ colorScheme: "dark" }, "colorScheme"],
      [{ reducedMotion: "reduce" }, "reducedMotion"],
    ] as const) {
      const captured = await failure(grant.capture(request, live()));
      expect(captured.code).toBe("browser_unsupported");
      expect(captured.message).toContain(name);
    }
    expect(fixture.proxy.commands.length).toBe(from);
    await grant.close();
  });

  it("captures the current viewport at the tab's own size", async () => {
    const { grant, targetId } = await fixture.grantPage("/plain");
    const capture = await grant.capture({}, live());
    const inner = await fixture.side.evaluate<{ width: number; height: number }>(
      targetId,
      "({ width: innerWidth, height: innerHeight })",
    );
    const png = PNG.sync.read(Buffer.from(capture.png));
    expect({ width: png.width, height: png.height }).toEqual(inner);
    expect(capture.viewport).toEqual(inner);
    expect([png.data[0], png.data[1], png.data[2]]).toEqual([10, 200, 30]);
    expect(capture).toMatchObject({
      url: `${fixture.site.origin}/plain`,
      title: "Plain",
      colorScheme: "light",
      reducedMotion: "no-preference",
    });
    const screenshot = fixture.proxy.commands.filter((command) => command.method === "Page.captureScreenshot").at(-1);
    expect(screenshot?.params).toEqual({ format: "png", captureBeyondViewport: false, fromSurface: true });
    await grant.close();
  });
});

describeNeeding(["chromium"], "closing", () => {
  it("BrowserSession.close waits for operations, refuses later ones and leaves the tab open", async () => {
    const { grant, targetId } = await fixture.grantPage("/form");
    const observing = grant.observe(live());
    let observed = false;
    const settled = observing.then(
      () => {
        observed = true;
      },
      () => undefined,
    );
    await grant.close();
    expect(observed).toBe(true);
    await settled;
    expect((await failure(grant.observe(live()))).code).toBe("browser_closed");
    await grant.close();
    expect(await fixture.side.targetInfo(targetId)).toMatchObject({ title: "Form" });
    expect(fixture.chromium.alive()).toBe(true);
    expect(fixture.connection.closed).toBe(false);
  });

  it("never sent emulation, download or persistent-script commands, nor touched another target", async () => {
    const methods = fixture.proxy.commands.map((command) => command.method);
    expect(methods).toContain("Page.captureScreenshot");
    expect(forbiddenMethods(fixture.proxy.commands)).toEqual([]);
    expect(methods).not.toContain("Browser.setDownloadBehavior");
    expect(methods).not.toContain("Page.addScriptToEvaluateOnNewDocument");
  });
});
