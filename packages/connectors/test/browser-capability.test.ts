import type { ModelRequest } from "@castellan/harness";
import { DeclarationError, defineCapability, textOf } from "@castellan/harness";
import { browserToolNames } from "@castellan/node-runner";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeNeeding } from "../../../test-support/system-programs.ts";
import { browser } from "../src/browser/index.ts";
import { chromiumPath } from "./support/chromium.ts";
import { chromiumChildren } from "./support/managed.ts";
import { startServer, type TestServer } from "./support/servers.ts";
import { call, capabilityRunner, lastToolText, runToEnd, toolResults } from "./support/session.ts";

let a: TestServer;

beforeAll(async () => {
  a = await startServer();
  a.page(
    "/page",
    `<title>Look</title><style>body{background:#fff;margin:0}@media (prefers-color-scheme: dark){body{background:rgb(10,20,30)}}</style>
     <p id=size></p><p id=motion></p>
     <script>const show=()=>{size.textContent='size '+innerWidth+'x'+innerHeight;
       motion.textContent='reduce '+matchMedia('(prefers-reduced-motion: reduce)').matches};
       addEventListener('resize',show);show();matchMedia('(prefers-reduced-motion: reduce)').addEventListener('change',show)</script>`,
  );
  a.page(
    "/noise",
    `<title>Noise</title><canvas id=c width=1280 height=720></canvas><script>
      const g=c.getContext('2d');const d=g.createImageData(1280,720);
      for(let i=0;i<d.data.length;i++)d.data[i]=(Math.random()*256)|0;g.putImageData(d,0,0)</script>`,
  );
});

afterAll(async () => {
  await a?.close();
});

const managed = (extra: Record<string, unknown> = {}) =>
  browser({ mode: "managed", executablePath: chromiumPath, actionTimeoutMs: 5_000, ...extra });

describeNeeding(["chromium"], "browser({ mode: 'managed' }) in a Session", () => {
  it("declares the ten tools and the browser section, launching nothing until the first navigate", async () => {
    const before = chromiumChildren().length;
    const capability = managed();
    expect(capability.name).toBe("browser");
    expect(capability.tools.map((tool) => tool.name)).toEqual([...browserToolNames]);
    expect(capability.instructions.map((section) => section.name)).toEqual(["browser"]);
    const { runner, model } = await capabilityRunner(capability, [{ text: "nothing" }]);
    try {
      const session = await runner.createSession();
      await runToEnd(session);
      expect(chromiumChildren().length).toBe(before);
      const request = model.requests[0] as ModelRequest;
      expect(request.tools.map((tool) => tool.name)).toEqual([...browserToolNames]);
      expect(request.system).toContain("browser_select_option");
      await session.close();
    } finally {
      await runner.close();
      await capability.close();
    }
  });

  it("captures dark 800×600 with reduced motion, text before the PNG, the viewport measured across Runs", async () => {
    const capability = managed();
    const url = `${a.origin}/page`;
    const { runner, model } = await capabilityRunner(capability, [
      call("browser_navigate", { url }),
      { text: "first run" },
      call("browser_capture", { width: 800, height: 600, colorScheme: "dark", reducedMotion: "reduce" }),
      call("browser_snapshot", {}),
      { text: "second run" },
    ]);
    try {
      const session = await runner.createSession();
      await runToEnd(session);
      const navigated = lastToolText(model.requests[1]);
      expect(navigated).toMatch(/1280/);
      expect(navigated).toContain("size 1280x720");
      await runToEnd(session);
      const results = toolResults(model.requests.at(-1));
      const capture = results.at(-2)!;
      expect(capture.content.map((block) => block.type)).toEqual(["text", "image"]);
      const image = capture.content[1] as { type: "image"; data: string | Uint8Array; mediaType?: string };
      const bytes = typeof image.data === "string" ? Buffer.from(image.data, "base64") : Buffer.from(image.data);
      const png = PNG.sync.read(bytes);
      expect([png.width, png.height]).toEqual([800, 600]);
      const pixel = [...png.data.subarray((10 * png.width + 10) * 4, (10 * png.width + 10) * 4 + 3)];
      expect(pixel).toEqual([10, 20, 30]);
      expect(textOf([capture.content[0]!])).toMatch(/dark/);
      const snapshot = lastToolText(model.requests.at(-1));
      expect(snapshot).toContain("size 800x600");
      expect(snapshot).toContain("reduce true");
      expect(snapshot).toMatch(/800/);
      await session.close();
    } finally {
      await runner.close();
      await capability.close();
    }
  });

  it("refuses a capture over maxImageBytes on a noisy page", async () => {
    const capability = managed({ maxImageBytes: 20_000 });
    const { runner, model } = await capabilityRunner(capability, [
      call("browser_navigate", { url: `${a.origin}/noise` }),
      call("browser_capture", {}),
      { text: "done" },
    ]);
    try {
      const session = await runner.createSession();
      await runToEnd(session);
      const result = toolResults(model.requests.at(-1)).at(-1)!;
      expect(result.isError).toBe(true);
      expect(textOf(result.content)).toMatch(/^browser_image_too_large/);
      expect(result.content.some((block) => block.type === "image")).toBe(false);
      await session.close();
    } finally {
      await runner.close();
      await capability.close();
    }
  });

  it("hides tools and section while enabled is off; on again, the same browser serves", async () => {
    let on = true;
    const capability = managed({ enabled: () => on });
    const { runner, model } = await capabilityRunner(capability, [
      call("browser_navigate", { url: `${a.origin}/page` }),
      { text: "one" },
      { text: "two" },
      call("browser_snapshot", {}),
      { text: "three" },
    ]);
    try {
      const session = await runner.createSession();
      await runToEnd(session);
      const pids = chromiumChildren();
      expect(pids.length).toBeGreaterThan(0);
      on = false;
      await runToEnd(session);
      const hidden = model.requests[2] as ModelRequest;
      expect(hidden.tools.map((tool) => tool.name)).toEqual([]);
      expect(hidden.system).not.toContain("browser_select_option");
      on = true;
      await runToEnd(session);
      expect(lastToolText(model.requests.at(-1))).toContain("size 1280x720");
      expect(chromiumChildren()).toEqual(pids);
      await session.close();
      expect(chromiumChildren().filter((pid) => pids.includes(pid))).toEqual([]);
    } finally {
      await runner.close();
      await capability.close();
    }
  });

  it("ends the Session's browser through its resource lease alone, without the sessionEnd hook", async () => {
    const capability = managed();
    // The same capability without its hook: only the lease's release can end the browser.
    const leaseOnly = defineCapability({ ...capability, hooks: {} });
    const { runner } = await capabilityRunner(leaseOnly, [
      call("browser_navigate", { url: `${a.origin}/page` }),
      { text: "opened" },
    ]);
    try {
      const before = new Set(chromiumChildren());
      const session = await runner.createSession();
      await runToEnd(session);
      const pids = chromiumChildren().filter((pid) => !before.has(pid));
      expect(pids.length).toBeGreaterThan(0);
      await session.close();
      expect(chromiumChildren().filter((pid) => pids.includes(pid))).toEqual([]);
    } finally {
      await runner.close();
      await capability.close();
    }
  });

  it("refuses a redirect to a listed Origin no navigate admitted yet; that server sees nothing", async () => {
    const listed = await startServer("127.0.0.2");
    a.page("/to-listed", (_request, response) => {
      response.writeHead(302, { location: `${listed.origin}/private?token=1` });
      response.end();
    });
    const capability = managed({ origins: [a.origin, listed.origin] });
    const { runner, model } = await capabilityRunner(capability, [
      call("browser_navigate", { url: `${a.origin}/to-listed` }),
      { text: "done" },
    ]);
    try {
      const session = await runner.createSession();
      await runToEnd(session);
      const text = lastToolText(model.requests.at(-1));
      expect(text).toMatch(/^browser_origin_not_admitted/);
      expect(text).toContain(listed.origin);
      expect(text).not.toMatch(/private|token/);
      expect(listed.requests).toEqual([]);
      await session.close();
    } finally {
      await runner.close();
      await capability.close();
      await listed.close();
    }
  });

  it("acts on the latest ref through the tools, and refuses it after navigation as stale", async () => {
    a.page(
      "/rows",
      `<title>Rows</title><section aria-label="One"><button onclick="log.textContent='first'">Delete</button></section>
       <section aria-label="Two"><button onclick="log.textContent='second'">Delete</button></section><p id=log></p>`,
    );
    const capability = managed();
    const secondRef = (text: string) => [...text.matchAll(/button "Delete" \[ref=([^\]]+)\]/g)][1]?.[1] ?? "missing";
    let stale = "";
    const { runner, model } = await capabilityRunner(capability, [
      call("browser_navigate", { url: `${a.origin}/rows` }),
      call("browser_click", { role: "button", name: "Delete" }),
      (request) => {
        stale = secondRef(lastToolText(request));
        return { toolCalls: [{ name: "browser_snapshot", input: {} }] };
      },
      (request) => ({
        toolCalls: [
          { name: "browser_click", input: { role: "button", name: "Delete", ref: secondRef(lastToolText(request)) } },
        ],
      }),
      call("browser_navigate", { url: `${a.origin}/rows` }),
      () => ({ toolCalls: [{ name: "browser_click", input: { role: "button", name: "Delete", ref: stale } }] }),
      { text: "done" },
    ]);
    try {
      const session = await runner.createSession();
      await runToEnd(session);
      const texts = toolResults(model.requests.at(-1)).map((result) => textOf(result.content));
      expect(texts[1]).toMatch(/^browser_target_ambiguous/);
      expect(texts[3]).toContain("second");
      expect(texts[5]).toMatch(/^browser_ref_stale/);
      await session.close();
    } finally {
      await runner.close();
      await capability.close();
    }
  });

  it("fails a navigate with browser_unavailable naming a missing executable", async () => {
    const capability = browser({ mode: "managed", executablePath: "/nonexistent/chromium" });
    const { runner, model } = await capabilityRunner(capability, [
      call("browser_navigate", { url: `${a.origin}/page` }),
      { text: "done" },
    ]);
    try {
      const session = await runner.createSession();
      await runToEnd(session);
      const text = lastToolText(model.requests.at(-1));
      expect(text).toMatch(/^browser_unavailable/);
      expect(text).toContain("/nonexistent/chromium");
      await session.close();
    } finally {
      await runner.close();
      await capability.close();
    }
  });
});

describe("browser() options", () => {
  const connection = { grant: () => ({}) as never };
  const tab = { targetId: "T1", url: "http://127.0.0.1:9/x", title: "X" };

  it("refuses malformed and conflicting options at declaration", () => {
    const bad: Record<string, unknown>[] = [
      { mode: "managed", executablePath: "/a", channel: "chrome" },
      { mode: "managed", viewport: { width: 100, height: 720 } },
      { mode: "managed", actionTimeoutMs: -1 },
      { mode: "managed", resourceAccess: "none" },
      { mode: "managed", profilesDirectory: "/tmp/not-a-url" },
      { mode: "managed", origins: ["http://127.0.0.1:3000/path"] },
      { mode: "managed", unknown: 1 },
      { mode: "other" },
      { mode: "selected", connection, tab, origins: ["http://127.0.0.1:9"] },
      { mode: "selected", connection, tab, executablePath: "/usr/bin/chromium" },
      { mode: "selected", connection, tab, resourceAccess: "http" },
      { mode: "selected", connection, tab, profilesDirectory: "file:///tmp/p" },
      { mode: "selected", connection, tab: { ...tab, url: "file:///etc/passwd" } },
      { mode: "selected", tab },
    ];
    for (const options of bad) {
      expect(() => browser(options as never), JSON.stringify(options)).toThrow(DeclarationError);
    }
  });

  it("declares the selected mode from a host-picked tab, granting it at the first operation, snapshot first", async () => {
    const grants: unknown[] = [];
    const observation = {
      url: tab.url,
      title: "X",
      tabs: [{ tabId: tab.targetId, url: tab.url, title: "X", active: true }],
      focusScope: "accessibility-tree" as const,
      focusedElement: null,
      snapshot: '- button "Go" [ref=e1]',
    };
    let closed = 0;
    const granted = {
      navigate: async () => observation,
      observe: async () => observation,
      switchTab: async () => observation,
      act: async () => observation,
      capture: async () => {
        throw new Error("unused");
      },
      close: async () => {
        closed += 1;
      },
    };
    const capability = browser({
      mode: "selected",
      connection: {
        grant: (picked, options) => {
          grants.push([picked, options]);
          return granted;
        },
      },
      tab,
      actionTimeoutMs: 2_000,
    });
    expect(capability.tools).toHaveLength(10);
    const { runner, model } = await capabilityRunner(capability, [call("browser_snapshot", {}), { text: "done" }]);
    try {
      const session = await runner.createSession();
      expect(grants).toEqual([]);
      await runToEnd(session);
      expect(grants).toEqual([[tab, { actionTimeoutMs: 2_000 }]]);
      expect(lastToolText(model.requests.at(-1))).toContain('button "Go"');
      await session.close();
      expect(closed).toBe(1);
    } finally {
      await runner.close();
      await capability.close();
    }
  });
});
