import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding } from "../../../test-support/system-programs.ts";
import { type DirectBrowser, openDirect, role } from "./support/managed.ts";
import { startServer, type TestServer } from "./support/servers.ts";

let a: TestServer;
let b: TestServer;
let browser: DirectBrowser;

beforeAll(async () => {
  a = await startServer("127.0.0.1");
  b = await startServer("127.0.0.2");
  browser = await openDirect();
});

afterAll(async () => {
  await browser?.close();
  await a?.close();
  await b?.close();
});

describeNeeding(["chromium"], "managed pages", () => {
  it("fills text, checks a checkbox and submits a form", async () => {
    a.page(
      "/form",
      `<title>Form</title><form id=f><label>Name <input name=n></label><label><input type=checkbox name=c> Agree</label>
       <button>Send</button></form><output aria-label="Result"></output>
       <script>f.onsubmit=(e)=>{e.preventDefault();document.querySelector('output').textContent='sent '+f.n.value+' '+f.c.checked}</script>`,
    );
    await browser.goto(`${a.origin}/form`);
    await browser.act({ kind: "fill", target: role("textbox", "Name"), value: "Ada" });
    await browser.act({ kind: "click", target: role("checkbox", "Agree") });
    const after = await browser.act({ kind: "click", target: role("button", "Send") });
    expect(after.snapshot).toContain("sent Ada true");
    expect(after.title).toBe("Form");
  });

  it("selects a native option by label, the page recording input and change", async () => {
    a.page(
      "/select",
      `<title>Select</title><label>Size <select id=s><option>Small</option><option>Large</option></select></label>
       <div role="combobox" aria-label="Custom" tabindex=0>pick</div><p id=log>events:</p>
       <script>for (const t of ['input','change']) s.addEventListener(t,()=>log.textContent+=' '+t+'='+s.value)</script>`,
    );
    await browser.goto(`${a.origin}/select`);
    const after = await browser.act({ kind: "select", target: role("combobox", "Size"), label: "Large" });
    expect(after.snapshot).toContain("events: input=Large change=Large");
    await expect(
      browser.act({ kind: "select", target: role("combobox", "Size"), label: "Huge" }),
    ).rejects.toMatchObject({
      code: "browser_option_not_found",
    });
    await expect(browser.act({ kind: "select", target: role("combobox", "Custom"), label: "x" })).rejects.toMatchObject(
      {
        code: "browser_not_native_select",
      },
    );
  });

  it("fills a date, then steps it by keys with the focused segment from the accessibility tree", async () => {
    a.page(
      "/date",
      `<title>Date</title><label>When <input type=date id=d></label><p id=v></p>
       <script>d.addEventListener('input',()=>v.textContent='value '+d.value)</script>`,
    );
    await browser.goto(`${a.origin}/date`);
    const filled = await browser.act({ kind: "fill", target: role("textbox", "When"), value: "2024-05-06" });
    expect(filled.focusScope).toBe("accessibility-tree");
    expect(filled.focusedElement).toMatchObject({ role: "spinbutton", value: "5" });
    expect(filled.focusedElement?.name).toMatch(/Month/);
    const moved = await browser.act({ kind: "key", key: "ArrowRight" });
    expect(moved.focusedElement).toMatchObject({ role: "spinbutton", value: "6" });
    expect(moved.focusedElement?.name).toMatch(/Day/);
    const stepped = await browser.act({ kind: "key", key: "ArrowUp" });
    expect(stepped.focusedElement).toMatchObject({ role: "spinbutton", value: "7" });
    expect(stepped.snapshot).toContain("value 2024-05-07");
  });

  it("reorders a list by dragging with real pointer input", async () => {
    a.page(
      "/drag",
      `<title>Drag</title><ul id=l>${["One", "Two", "Three"].map((n) => `<li draggable=true aria-label="${n}">${n}</li>`).join("")}</ul>
       <script>let dragged;l.addEventListener('dragstart',e=>{dragged=e.target});
       l.addEventListener('dragover',e=>e.preventDefault());
       l.addEventListener('drop',e=>{e.preventDefault();const t=e.target.closest('li');if(t&&t!==dragged)l.insertBefore(dragged,t)})</script>`,
    );
    await browser.goto(`${a.origin}/drag`);
    const after = await browser.act({
      kind: "drag",
      source: role("listitem", "Three"),
      target: role("listitem", "One"),
    });
    const order = after.snapshot.match(/listitem "(One|Two|Three)"/g);
    expect(order).toEqual(['listitem "Three"', 'listitem "One"', 'listitem "Two"']);
  });

  it("clicks a hover-revealed control only after hovering its row, and hovers a disabled control", async () => {
    a.page(
      "/hover",
      `<title>Hover</title><style>.row .edit{visibility:hidden}.row:hover .edit{visibility:visible}</style>
       <div class=row role=group aria-label="Row one">Row one <button class=edit onclick="done.textContent='edited'">Edit</button></div>
       <button disabled title="Locked">Locked</button><p id=done></p>`,
    );
    await browser.goto(`${a.origin}/hover`);
    await expect(browser.act({ kind: "click", target: role("button", "Edit") })).rejects.toMatchObject({
      code: "browser_target_not_found",
    });
    const hovered = await browser.act({ kind: "hover", target: role("group", "Row one") });
    expect(hovered.snapshot).toMatch(/button "Edit"/);
    const clicked = await browser.act({ kind: "click", target: role("button", "Edit") });
    expect(clicked.snapshot).toContain("edited");
    const disabled = await browser.act({ kind: "hover", target: role("button", "Locked") });
    expect(disabled.snapshot).toMatch(/button "Locked" \[disabled\]/);
  });

  it("keeps two tabs on two Origins with independent form state across switches", async () => {
    const page = `<title>Tab</title><label>Note <input></label>`;
    a.page("/tab", page);
    b.page("/tab", page);
    const first = await browser.goto(`${a.origin}/tab`);
    const firstTab = first.tabs.find((tab) => tab.active)!.tabId;
    await browser.act({ kind: "fill", target: role("textbox", "Note"), value: "alpha" });
    const second = await browser.goto(`${b.origin}/tab`, true);
    const secondTab = second.tabs.find((tab) => tab.active)!.tabId;
    expect(secondTab).not.toBe(firstTab);
    await browser.act({ kind: "fill", target: role("textbox", "Note"), value: "beta" });
    const back = await browser.session.switchTab(firstTab, { signal: AbortSignal.timeout(10_000) });
    expect(back.url).toBe(`${a.origin}/tab`);
    expect(back.snapshot).toContain("alpha");
    expect(back.snapshot).not.toContain("beta");
    const again = await browser.session.switchTab(secondTab, { signal: AbortSignal.timeout(10_000) });
    expect(again.snapshot).toContain("beta");
    await expect(browser.session.switchTab("t99", { signal: AbortSignal.timeout(10_000) })).rejects.toMatchObject({
      code: "browser_tab_unknown",
    });
  });

  it("closes popups at once and never lists them", async () => {
    a.page("/popup-target", "<title>Popup</title>");
    a.page(
      "/popups",
      `<title>Opener</title><a href="/popup-target" target=_blank>New window</a>
       <button onclick="window.open('/popup-target')">Open</button>`,
    );
    const before = await browser.goto(`${a.origin}/popups`);
    await browser.act({ kind: "click", target: role("link", "New window") });
    const after = await browser.act({ kind: "click", target: role("button", "Open") });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await browser.observe();
    expect(after.tabs).toEqual(before.tabs.map((tab) => ({ ...tab, title: tab.active ? "Opener" : tab.title })));
    expect(later.tabs.length).toBe(before.tabs.length);
    expect(later.tabs.some((tab) => tab.url.includes("popup-target"))).toBe(false);
  });

  it("shows a null title for a background tab that navigated itself, and a held-open one does not delay the active tab", async () => {
    a.page("/later", "<title>Later</title>");
    a.page("/self", `<title>Self</title><script>setTimeout(()=>location.href='/later',600)</script>`);
    a.page("/hold", () => {});
    a.page("/holder", `<title>Holder</title><script>setTimeout(()=>location.href='/hold',600)</script>`);
    const self = await browser.goto(`${a.origin}/self`, true);
    const selfTab = self.tabs.find((tab) => tab.active)!.tabId;
    expect(self.tabs.find((tab) => tab.tabId === selfTab)?.title).toBe("Self");
    const holder = await browser.goto(`${a.origin}/holder`, true);
    const holderTab = holder.tabs.find((tab) => tab.active)!.tabId;
    await browser.goto(`${b.origin}/tab`, true);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(a.requests).toContain("/hold");
    const started = Date.now();
    const observed = await browser.observe();
    expect(Date.now() - started).toBeLessThan(2_000);
    const background = observed.tabs.find((tab) => tab.tabId === selfTab);
    expect(background).toMatchObject({ url: `${a.origin}/later`, title: null, active: false });
    expect(observed.tabs.find((tab) => tab.tabId === holderTab)?.active).toBe(false);
  });

  it("aborts an operation with its signal, and refuses hovering a covered (not hit-testable) control", async () => {
    a.page(
      "/covered",
      `<title>Covered</title><button>Under</button>
       <div style="position:fixed;inset:0;background:rgba(0,0,0,.1)"></div>`,
    );
    await browser.goto(`${a.origin}/covered`);
    const controller = new AbortController();
    const reason = new Error("Run aborted");
    setTimeout(() => controller.abort(reason), 200);
    const started = Date.now();
    const aborted = await browser.session
      .act({ kind: "click", target: role("button", "Under") }, { signal: controller.signal })
      .catch((caught) => caught);
    expect(aborted).toBe(reason);
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(browser.act({ kind: "hover", target: role("button", "Under") })).rejects.toMatchObject({
      code: "browser_timeout",
    });
  });
});
