import { execFileSync } from "node:child_process";
import type {
  AdmittedOrigins,
  BrowserAction,
  BrowserObservation,
  BrowserSession,
  BrowserTarget,
} from "@castellan/node-runner";
import { createManagedBrowserFactory } from "../../src/browser/managed/factory.ts";
import type { ManagedBrowserConfig } from "../../src/browser/managed/launch-options.ts";
import { chromiumPath, requireChromium } from "./chromium.ts";

/** The adapter's configuration in tests: the Chromium of ./chromium.ts, short timeouts. */
export function testConfig(overrides: Partial<ManagedBrowserConfig> = {}): ManagedBrowserConfig {
  return {
    executablePath: chromiumPath,
    headless: true,
    args: [],
    actionTimeoutMs: 3_000,
    navigationTimeoutMs: 10_000,
    viewport: { width: 1280, height: 720 },
    resourceAccess: "same-origin",
    ...overrides,
  };
}

/** A Session's admitted set the test grows by hand, as the owner does on approved navigates. */
export class TestAdmitted implements AdmittedOrigins {
  readonly origins = new Set<string>();
  /** The declared Origins navigate could admit; undefined (the default) for any. */
  declared: ReadonlySet<string> | undefined;
  has(origin: string): boolean {
    return this.origins.has(origin);
  }
  list(): readonly string[] {
    return [...this.origins];
  }
  admissible(origin: string): boolean {
    return this.declared === undefined || this.declared.has(origin);
  }
}

/** A managed BrowserSession driven directly, as the owner would drive it. */
export interface DirectBrowser {
  readonly session: BrowserSession;
  readonly admitted: TestAdmitted;
  /** Admits the URL's Origin and navigates. */
  goto(url: string, newTab?: boolean): Promise<BrowserObservation>;
  act(action: BrowserAction): Promise<BrowserObservation>;
  observe(): Promise<BrowserObservation>;
  close(): Promise<void>;
}

const signal = () => AbortSignal.timeout(30_000);

/** Opens the managed adapter for one Session id. */
export async function openDirect(
  overrides: Partial<ManagedBrowserConfig> = {},
  sessionId = "session-1",
): Promise<DirectBrowser> {
  // A test of a missing executable names its own path and needs no Chromium.
  if (overrides.executablePath === undefined) requireChromium();
  const admitted = new TestAdmitted();
  const session = await createManagedBrowserFactory(testConfig(overrides)).open({
    sessionId,
    signal: signal(),
    admittedOrigins: admitted,
  });
  return {
    session,
    admitted,
    goto(url, newTab = false) {
      const origin = new URL(url).origin;
      admitted.origins.add(origin);
      return session.navigate({ url, origin, newTab }, { signal: signal() });
    },
    act: (action) => session.act(action, { signal: signal() }),
    observe: () => session.observe({ signal: signal() }),
    close: () => session.close(),
  };
}

/** The ref the snapshot gives the first line matching `line` (e.g. /button "Delete"/). */
export function refOf(snapshot: string, line: RegExp, nth = 0): string {
  const matches = snapshot.split("\n").filter((text) => line.test(text));
  const ref = /\[ref=([a-z0-9]+)\]/.exec(matches[nth] ?? "")?.[1];
  if (ref === undefined) throw new Error(`No ref on a line matching ${line} in:\n${snapshot}`);
  return ref;
}

/** A target by role and name. */
export function role(roleName: string, name: string, extra: Partial<BrowserTarget> = {}): BrowserTarget {
  return { role: roleName, name, ...extra };
}

/** The Chromium browser processes that are children of this test process. */
export function chromiumChildren(): number[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
  } catch {
    return [];
  }
  return out
    .split("\n")
    .filter((line) => line.includes(chromiumPath) || /chromium/.test(line))
    .map((line) => Number.parseInt(line.trim(), 10))
    .filter((pid) => Number.isInteger(pid));
}
