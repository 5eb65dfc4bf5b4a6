import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeNeeding, itNeeding } from "../../../test-support/system-programs.ts";
import { fixedChromiumArgs } from "../src/browser/managed/launch-options.ts";
import { profileDirectory } from "../src/browser/managed/profiles.ts";
import { chromiumPath } from "./support/chromium.ts";
import { chromiumChildren, openDirect, role } from "./support/managed.ts";
import { startServer, type TestServer } from "./support/servers.ts";

let a: TestServer;
let profiles: string;

beforeAll(async () => {
  a = await startServer();
  a.page(
    "/store",
    `<title>Store</title><p id=out></p><button onclick="localStorage.setItem('k','kept');document.cookie='c=baked; max-age=3600; path=/';show()">Save</button>
     <script>function show(){out.textContent='local '+(localStorage.getItem('k')??'none')+' cookie '+(document.cookie||'none')}show()</script>`,
  );
  a.page("/echo", (request, response) => {
    response.writeHead(200, { "content-type": "text/html", "set-cookie": "server=set; Path=/; Max-Age=3600" });
    response.end(`<title>Echo</title><p>sent ${request.headers.cookie ?? "no cookie"}</p>`);
  });
  profiles = await mkdtemp(join(tmpdir(), "castellan-browser-profiles-"));
});

afterAll(async () => {
  await a?.close();
  if (profiles) await rm(profiles, { recursive: true, force: true });
});

describe("launch", () => {
  itNeeding(
    ["chromium"],
    "adds the fixed flags (and --no-sandbox as root), and ends the browser process on close",
    async () => {
      const before = chromiumChildren();
      const browser = await openDirect({}, "launch-flags");
      const launched = chromiumChildren().filter((pid) => !before.includes(pid));
      expect(launched).toHaveLength(1);
      const commandLine = execFileSync("ps", ["-o", "args=", "-p", String(launched[0])], { encoding: "utf8" });
      for (const flag of fixedChromiumArgs) expect(commandLine).toContain(flag);
      if (process.getuid?.() === 0) expect(commandLine).toContain("--no-sandbox");
      expect(commandLine).toContain("LocalNetworkAccessChecks");
      await browser.close();
      await browser.close();
      expect(chromiumChildren().filter((pid) => launched.includes(pid))).toEqual([]);
    },
  );

  it("with neither executablePath nor channel, runs playwright-core's own lookup and fails it explicitly", async () => {
    // In a process of its own whose browser cache is empty, so no downloaded browser can answer.
    const empty = await mkdtemp(join(tmpdir(), "castellan-playwright-browsers-"));
    try {
      const factory = new URL("../dist/browser/managed/factory.js", import.meta.url).href;
      const script = `
        const { createManagedBrowserFactory } = await import(${JSON.stringify(factory)});
        const config = { headless: true, args: [], actionTimeoutMs: 3000, navigationTimeoutMs: 10000,
          viewport: { width: 1280, height: 720 }, resourceAccess: "same-origin" };
        const admitted = { has: () => false, list: () => [] };
        try {
          await createManagedBrowserFactory(config).open({ sessionId: "s", signal: new AbortController().signal, admittedOrigins: admitted });
          process.stdout.write(JSON.stringify({ opened: true }));
        } catch (error) {
          process.stdout.write(JSON.stringify({ code: error.code, message: error.message }));
        }`;
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        encoding: "utf8",
        env: { ...process.env, PLAYWRIGHT_BROWSERS_PATH: empty },
      });
      const answer = JSON.parse(out) as { code?: string; message?: string; opened?: boolean };
      expect(answer).toMatchObject({ code: "browser_unavailable" });
      expect(answer.message).toMatch(/could not start/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("fails browser_unavailable naming a missing executable", async () => {
    const error = await openDirect({ executablePath: "/nonexistent/chromium" }).catch((caught) => caught);
    expect(error).toMatchObject({ code: "browser_unavailable" });
    expect(error.message).toContain("/nonexistent/chromium");
  });
});

describeNeeding(["chromium"], "persistent profiles", () => {
  it("keeps localStorage and a cookie across close and reopen of the same Session id, not another", async () => {
    const directory = pathToFileURL(profiles).href;
    const first = await openDirect({ profilesDirectory: profiles }, "session-a");
    const fresh = await first.goto(`${a.origin}/store`);
    expect(fresh.snapshot).toContain("local none cookie none");
    const saved = await first.act({ kind: "click", target: role("button", "Save") });
    expect(saved.snapshot).toContain("local kept cookie c=baked");
    expect(fresh.tabs.map((tab) => tab.tabId)).toEqual(["t1"]);
    // Top-level documents are fetched by the routing: the browser's cookies go with them, theirs are kept.
    await first.goto(`${a.origin}/echo`);
    const echoed = await first.goto(`${a.origin}/echo`);
    expect(echoed.snapshot).toContain("c=baked");
    expect(echoed.snapshot).toContain("server=set");

    const busy = await openDirect({ profilesDirectory: profiles }, "session-a").catch((caught) => caught);
    expect(busy).toMatchObject({ code: "browser_profile_in_use" });
    await first.close();

    const dir = profileDirectory(profiles, "session-a");
    expect(dir).toMatch(/[0-9a-f]{64}$/);
    expect((await stat(dir)).isDirectory()).toBe(true);

    const again = await openDirect({ profilesDirectory: profiles }, "session-a");
    try {
      expect(again.admitted.list()).toEqual([]);
      const reopened = await again.goto(`${a.origin}/store`);
      expect(reopened.snapshot).toContain("local kept cookie c=baked");
      expect(reopened.tabs).toHaveLength(1);
    } finally {
      await again.close();
    }
    const other = await openDirect({ profilesDirectory: profiles }, "session-b");
    try {
      const elsewhere = await other.goto(`${a.origin}/store`);
      expect(elsewhere.snapshot).toContain("local none cookie none");
    } finally {
      await other.close();
    }
    expect(
      (await readdir(profiles))
        .filter((name) => name !== profileDirectory(profiles, "session-held").slice(profiles.length + 1))
        .sort(),
    ).toEqual(
      [profileDirectory(profiles, "session-a"), profileDirectory(profiles, "session-b")]
        .map((path) => path.slice(profiles.length + 1))
        .sort(),
    );
    expect(directory.startsWith("file:")).toBe(true);
  });

  it("refuses a profile a live browser of another process holds", async () => {
    const directory = profileDirectory(profiles, "session-held");
    const holder = spawn(
      chromiumPath,
      [
        "--headless",
        "--no-sandbox",
        "--no-first-run",
        "--remote-debugging-port=0",
        `--user-data-dir=${directory}`,
        "about:blank",
      ],
      // Its own process group, so ending it ends every Chromium process it started.
      { stdio: "ignore", detached: true },
    );
    try {
      const deadline = Date.now() + 10_000;
      // Chromium writes DevToolsActivePort once it runs (and holds the profile).
      while (!existsSync(join(directory, "DevToolsActivePort")) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const error = await openDirect({ profilesDirectory: profiles }, "session-held").catch((caught) => caught);
      expect(error).toMatchObject({ code: "browser_profile_in_use" });
    } finally {
      const exited = new Promise((resolve) => holder.once("exit", resolve));
      process.kill(-(holder.pid as number), "SIGTERM");
      await exited;
    }
  });
});
