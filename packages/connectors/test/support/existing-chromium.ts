// A headless Chromium with remote debugging on a fresh profile, as a child process, standing
// in for the host's own Chrome; and a side DevTools client playing "another client".
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CdpTransport } from "../../src/browser/existing/cdp-transport.js";
import { chromiumPath } from "./chromium.ts";

/** The Chromium the existing-tab tests start (see ./chromium.ts). */
export { chromiumPath };

/** A running Chromium and the ways to reach it. */
export interface RunningChromium {
  readonly process: ChildProcess;
  /** The browser-level WebSocket URL. */
  readonly endpoint: string;
  /** The profile directory, as a `file:` URL ending in `/`. */
  readonly profileDirectory: URL;
  /** True while the process runs. */
  alive(): boolean;
  /** Ends the process and its helpers, and removes the profile. */
  stop(): Promise<void>;
}

async function waitForPortFile(directory: string, child: ChildProcess): Promise<string> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Chromium exited with ${child.exitCode} before debugging was on.`);
    const text = await readFile(join(directory, "DevToolsActivePort"), "utf8").catch(() => "");
    const [port, path] = text.split("\n");
    if (port && path?.startsWith("/devtools/browser/")) return `ws://127.0.0.1:${port.trim()}${path.trim()}`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("Chromium did not write DevToolsActivePort within 20 s.");
}

/** Processes still running with `directory` as their profile (Chromium's helpers included). */
async function processesOf(directory: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const status = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    if (commandLine.includes(`--user-data-dir=${directory}`) && !/\) Z /.test(status)) pids.push(Number(entry));
  }
  return pids;
}

/** Waits up to 5 s for every process of `directory` to end, then kills what is left (ours). */
async function reap(directory: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  let left = await processesOf(directory);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = await processesOf(directory);
  }
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Starts Chromium; fails without it, saying what to install (suites that call it skip first where it is absent). */
export async function startChromium(): Promise<RunningChromium> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`The existing-tab tests need Chromium at ${chromiumPath}: apt-get install -y chromium`);
  }
  const directory = await mkdtemp(join(tmpdir(), "castellan-existing-"));
  const child = spawn(
    chromiumPath,
    [
      "--headless",
      "--remote-debugging-port=0",
      `--user-data-dir=${directory}`,
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--no-sandbox",
      "about:blank",
    ],
    { stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let endpoint: string;
  try {
    endpoint = await waitForPortFile(directory, child);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    await reap(directory);
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    process: child,
    endpoint,
    profileDirectory: pathToFileURL(`${directory}/`),
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
        await exited;
        clearTimeout(timer);
      }
      await reap(directory);
      await rm(directory, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/** Another DevTools client of the same Chromium: opens, navigates, reads and closes tabs directly. */
export class SideClient {
  private constructor(readonly transport: CdpTransport) {}

  static async open(endpoint: string): Promise<SideClient> {
    return new SideClient(await CdpTransport.open(endpoint));
  }

  /** Opens a tab at `url` and waits for it to load; its target id. */
  async openTab(url: string): Promise<string> {
    const { targetId } = await this.transport.send<{ targetId: string }>("Target.createTarget", { url: "about:blank" });
    await this.navigate(targetId, url);
    return targetId;
  }

  /** Navigates the tab and waits for its load event. */
  async navigate(targetId: string, url: string): Promise<void> {
    await this.withSession(targetId, async (send, loaded) => {
      await send("Page.enable");
      const load = loaded();
      await send("Page.navigate", { url });
      await load;
    });
  }

  /** Evaluates `expression` in the tab (the test's own reads, never the adapter's). */
  evaluate<T>(targetId: string, expression: string): Promise<T> {
    return this.withSession(targetId, async (send) => {
      const answer = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
      return answer.result.value as T;
    });
  }

  /** The tab's target info, or undefined once it is gone. */
  async targetInfo(targetId: string): Promise<{ url: string; title: string } | undefined> {
    const { targetInfos } = await this.transport.send<{
      targetInfos: { targetId: string; url: string; title: string }[];
    }>("Target.getTargets");
    return targetInfos.find((info) => info.targetId === targetId);
  }

  closeTab(targetId: string): Promise<unknown> {
    return this.transport.send("Target.closeTarget", { targetId });
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async withSession<T>(
    targetId: string,
    work: (
      send: (method: string, params?: Record<string, unknown>) => Promise<any>,
      loaded: () => Promise<void>,
    ) => Promise<T>,
  ): Promise<T> {
    const { sessionId } = await this.transport.send<{ sessionId: string }>("Target.attachToTarget", {
      targetId,
      flatten: true,
    });
    const loaded = () =>
      new Promise<void>((resolve) => {
        const stop = this.transport.onEvent((event) => {
          if (event.sessionId === sessionId && event.method === "Page.loadEventFired") {
            stop();
            resolve();
          }
        });
      });
    try {
      return await work((method, params = {}) => this.transport.send(method, params, sessionId), loaded);
    } finally {
      await this.transport.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
    }
  }
}
