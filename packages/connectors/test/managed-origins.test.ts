import { afterAll, beforeAll, expect, it } from "vitest";
import { describeNeeding } from "../../../test-support/system-programs.ts";
import { type DirectBrowser, openDirect, role } from "./support/managed.ts";
import { startServer, type TestServer } from "./support/servers.ts";

let a: TestServer;
let b: TestServer;
let browser: DirectBrowser;
const signal = () => AbortSignal.timeout(20_000);

beforeAll(async () => {
  a = await startServer("127.0.0.1");
  b = await startServer("127.0.0.2");
  b.page("/secret/landing", "<title>Landing</title><p>landed</p>");
  b.page("/res", "<title>B</title>");
  a.page("/links", () => {});
  browser = await openDirect();
});

afterAll(async () => {
  await browser?.close();
  await a?.close();
  await b?.close();
});

describeNeeding(["chromium"], "top-level navigation", () => {
  it("refuses a link to an unadmitted Origin naming only the Origin; a new tab, switch back and repeat succeeds", async () => {
    const secret = `${b.origin}/secret/landing?token=hunter2`;
    a.page("/link", `<title>Link</title><label>Kept <input></label><a href="${secret}">Go</a>`);
    await browser.goto(`${a.origin}/link`);
    await browser.act({ kind: "fill", target: role("textbox", "Kept"), value: "state" });
    const error = await browser.act({ kind: "click", target: role("link", "Go") }).catch((caught) => caught);
    expect(error).toMatchObject({ code: "browser_origin_not_admitted" });
    expect(error.message).toContain(b.origin);
    expect(error.message).not.toContain("secret");
    expect(error.message).not.toContain("hunter2");
    expect(b.requests).toEqual([]);
    const stayed = await browser.observe();
    expect(stayed.url).toBe(`${a.origin}/link`);
    expect(stayed.snapshot).toContain("state");
    const original = stayed.tabs.find((tab) => tab.active)!.tabId;

    await browser.goto(`${b.origin}/res`, true);
    await browser.session.switchTab(original, { signal: signal() });
    const done = await browser.act({ kind: "click", target: role("link", "Go") });
    expect(done.url).toBe(secret);
    expect(done.snapshot).toContain("landed");
  });

  it("refuses a 302 to an unadmitted Origin, even one listed but not yet navigated", async () => {
    const c = await startServer("127.0.0.3");
    try {
      a.page("/redirect", (_request, response) => {
        response.writeHead(302, { location: `${c.origin}/private/path?key=abc` });
        response.end();
      });
      const error = await browser.goto(`${a.origin}/redirect`).catch((caught) => caught);
      expect(error).toMatchObject({ code: "browser_origin_not_admitted" });
      expect(error.message).toContain(c.origin);
      expect(error.message).not.toMatch(/private|key=abc/);
      expect(c.requests).toEqual([]);
      a.page("/via", `<title>Via</title><a href="/redirect">Redirect me</a>`);
      await browser.goto(`${a.origin}/via`);
      await expect(browser.act({ kind: "click", target: role("link", "Redirect me") })).rejects.toMatchObject({
        code: "browser_origin_not_admitted",
      });
      expect(c.requests).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it("follows redirects within admitted Origins, each hop checked", async () => {
    a.page("/hop1", (_request, response) => {
      response.writeHead(302, { location: "/hop2" });
      response.end();
    });
    a.page("/hop2", (_request, response) => {
      response.writeHead(301, { location: `${b.origin}/secret/landing` });
      response.end();
    });
    b.requests.length = 0;
    const landed = await browser.goto(`${a.origin}/hop1`);
    expect(landed.url).toBe(`${b.origin}/secret/landing`);
    const c = await startServer("127.0.0.3");
    try {
      a.page("/hop3", (_request, response) => {
        response.writeHead(302, { location: "/hop4" });
        response.end();
      });
      a.page("/hop4", (_request, response) => {
        response.writeHead(302, { location: `${c.origin}/x` });
        response.end();
      });
      await expect(browser.goto(`${a.origin}/hop3`)).rejects.toMatchObject({ code: "browser_origin_not_admitted" });
      expect(c.requests).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

function resourcesPage(other: TestServer): string {
  const ws = other.origin.replace("http:", "ws:");
  return `<title>Resources</title><img src="${other.origin}/img.png" alt="pic">
    <iframe src="${other.origin}/frame" title="frame"></iframe><p id=out>pending</p>
    <script>
      const results = [];
      fetch("${other.origin}/api").then(() => results.push("fetch ok"), () => results.push("fetch blocked"))
        .finally(() => { out.textContent = results.join(",") });
      const socket = new WebSocket("${ws}/ws");
      socket.onmessage = () => results.push("ws ok");
      navigator.serviceWorker?.register("/sw.js").catch(() => {});
    </script>`;
}

describeNeeding(["chromium"], "resource policy", () => {
  it("same-origin: a cross-origin image, fetch, iframe and WebSocket reach the second server zero times; no service worker is fetched", async () => {
    const other = await startServer("127.0.0.4");
    try {
      a.page("/resources", resourcesPage(other));
      a.page("/sw.js", (_request, response) => {
        response.writeHead(200, { "content-type": "text/javascript" });
        response.end("");
      });
      const observed = await browser.goto(`${a.origin}/resources`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(observed.url).toBe(`${a.origin}/resources`);
      expect(other.requests).toEqual([]);
      expect(other.upgrades).toBe(0);
      expect(a.requests).not.toContain("/sw.js");
    } finally {
      await other.close();
    }
  });

  it("http: all four arrive", async () => {
    const open = await openDirect({ resourceAccess: "http" }, "session-http");
    const other = await startServer("127.0.0.5");
    try {
      other.page("/img.png", (_request, response) => response.end());
      other.page("/api", (_request, response) => {
        response.writeHead(200, { "access-control-allow-origin": "*" });
        response.end("ok");
      });
      other.page("/frame", "<title>Frame</title>");
      a.page("/resources-http", resourcesPage(other));
      await open.goto(`${a.origin}/resources-http`);
      const deadline = Date.now() + 5_000;
      while ((other.requests.length < 3 || other.upgrades < 1) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(new Set(other.requests)).toEqual(new Set(["/img.png", "/frame", "/api"]));
      expect(other.upgrades).toBe(1);
    } finally {
      await open.close();
      await other.close();
    }
  });
});
