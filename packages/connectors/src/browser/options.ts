import { fileURLToPath } from "node:url";
import { DeclarationError, type Enabled } from "@castellan/harness";
import type { BrowserSession } from "@castellan/node-runner";
import type { ManagedBrowserConfig } from "./managed/launch-options.js";

/** Options both modes take. */
export interface BrowserCommonOptions {
  /** Milliseconds one page action may take. Default 10,000; 100-600,000. */
  readonly actionTimeoutMs?: number;
  /** A `file:` URL: `browser_capture` `savePath` values are relative to it and must stay inside. Default: none (saving refused). */
  readonly captureWorkspaceRoot?: URL | string;
  /** The whole observation's bytes before it is paged and cut. Default 16,384; 1,024-1,048,576. */
  readonly maxObservationBytes?: number;
  /** The largest PNG a capture returns. Default 2,097,152; 1,024-16,777,216. */
  readonly maxImageBytes?: number;
  /** Hides the ten tools and the `browser` section for a turn; re-enabled, the same browser is reused. Default true. */
  readonly enabled?: Enabled;
}

/** `browser({ mode: "managed" })`: a headless Chromium this capability launches, one per Session. */
export interface ManagedBrowserOptions extends BrowserCommonOptions {
  readonly mode: "managed";
  /** The Chromium executable (tests use `/usr/bin/chromium`); not with `channel`. Default: playwright-core's own lookup, which fails explicitly when nothing is installed. */
  readonly executablePath?: string;
  /** An installed browser channel such as `chrome`; not with `executablePath`. Default: none. */
  readonly channel?: string;
  /** Default true. */
  readonly headless?: boolean;
  /** Extra Chromium flags, added after the fixed ones. Default `[]`; at most 64. */
  readonly args?: readonly string[];
  /** Milliseconds a navigation (and the page settling after an action) may take. Default 30,000; 100-600,000. */
  readonly navigationTimeoutMs?: number;
  /** The initial viewport in CSS pixels. Default 1280×720; width 320-3840, height 240-2160. */
  readonly viewport?: { readonly width: number; readonly height: number };
  /** Exact Origins a Session may navigate to (each still approved). Default: any HTTP(S) Origin without credentials. */
  readonly origins?: readonly string[];
  /** `same-origin`: subresources, frames and WebSockets only from admitted Origins; `http`: any HTTP(S) / WS(S). Default `same-origin`. */
  readonly resourceAccess?: "same-origin" | "http";
  /** A `file:` URL: each Session gets a persistent profile at `<dir>/<sha256 hex of the Session id>`. Default: a temporary profile. */
  readonly profilesDirectory?: URL | string;
}

/** A tab as `ExistingChromeConnection.listTabs()` lists it. */
export interface SelectedBrowserTab {
  readonly targetId: string;
  readonly url: string;
  readonly title: string;
}

/** What the selected mode needs of an `ExistingChromeConnection`. */
export interface SelectedBrowserConnection {
  grant(tab: SelectedBrowserTab, options?: { actionTimeoutMs?: number }): BrowserSession;
}

/** `browser({ mode: "selected" })`: one tab of a Chrome the host already runs, picked by the host. */
export interface SelectedBrowserOptions extends BrowserCommonOptions {
  readonly mode: "selected";
  /** The host's connection (`ExistingChromeConnection.connect(...)`). */
  readonly connection: SelectedBrowserConnection;
  /** The host-picked entry of `connection.listTabs()`; it must show an HTTP(S) page. */
  readonly tab: SelectedBrowserTab;
}

/** The options of `browser()`. */
export type BrowserOptions = ManagedBrowserOptions | SelectedBrowserOptions;

const commonKeys = [
  "mode",
  "actionTimeoutMs",
  "captureWorkspaceRoot",
  "maxObservationBytes",
  "maxImageBytes",
  "enabled",
];
const managedKeys = [
  ...commonKeys,
  "executablePath",
  "channel",
  "headless",
  "args",
  "navigationTimeoutMs",
  "viewport",
  "origins",
  "resourceAccess",
  "profilesDirectory",
];
const selectedKeys = [...commonKeys, "connection", "tab"];

/** The common options checked; the limits and capture root are checked by node-runner's owner. */
export interface ResolvedCommonOptions {
  readonly actionTimeoutMs: number;
  readonly captureWorkspaceRoot?: URL | string;
  readonly maxObservationBytes?: number;
  readonly maxImageBytes?: number;
  readonly enabled?: Enabled;
}

/** Managed options checked and frozen. */
export interface ResolvedManagedOptions extends ResolvedCommonOptions {
  readonly mode: "managed";
  readonly config: ManagedBrowserConfig;
  readonly origins?: readonly string[];
}

/** Selected options checked and frozen. */
export interface ResolvedSelectedOptions extends ResolvedCommonOptions {
  readonly mode: "selected";
  readonly connection: SelectedBrowserConnection;
  readonly tab: SelectedBrowserTab;
}

function fail(message: string): never {
  throw new DeclarationError(`browser: ${message}`);
}

function integer(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined && !Number.isNaN(fallback)) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    fail(`${field} must be an integer from ${min} to ${max}.`);
  }
  return value;
}

function fileDirectory(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = value instanceof URL ? value : new URL(String(value));
  } catch {
    fail(`${field} must be a file: URL.`);
  }
  if (url.protocol !== "file:") fail(`${field} must be a file: URL, not ${url.protocol}.`);
  return fileURLToPath(url);
}

function common(given: Record<string, unknown>, keys: readonly string[]): ResolvedCommonOptions {
  for (const key of Object.keys(given)) {
    if (keys.includes(key)) continue;
    if (given.mode === "selected" && managedKeys.includes(key)) {
      fail(`${key} is a managed-mode option; a selected tab is the host's own browser, so remove it.`);
    }
    fail(`${key} is not an option of mode "${String(given.mode)}"; the options are ${keys.join(", ")}.`);
  }
  const enabled = given.enabled;
  if (enabled !== undefined && typeof enabled !== "boolean" && typeof enabled !== "function") {
    fail("enabled must be a boolean or a function of the turn context.");
  }
  const root = given.captureWorkspaceRoot;
  if (root !== undefined) fileDirectory(root, "captureWorkspaceRoot");
  return {
    actionTimeoutMs: integer(given.actionTimeoutMs, "actionTimeoutMs", 10_000, 100, 600_000),
    ...(root === undefined
      ? {}
      : { captureWorkspaceRoot: root instanceof URL ? new URL(root.href) : (root as string) }),
    ...(given.maxObservationBytes === undefined ? {} : { maxObservationBytes: given.maxObservationBytes as number }),
    ...(given.maxImageBytes === undefined ? {} : { maxImageBytes: given.maxImageBytes as number }),
    ...(enabled === undefined ? {} : { enabled: enabled as Enabled }),
  };
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") fail(`${field} must be a non-empty string.`);
  return value;
}

function managed(given: Record<string, unknown>): ResolvedManagedOptions {
  const shared = common(given, managedKeys);
  const executablePath = optionalString(given.executablePath, "executablePath");
  const channel = optionalString(given.channel, "channel");
  if (executablePath !== undefined && channel !== undefined) fail("give executablePath or channel, not both.");
  const headless = given.headless ?? true;
  if (typeof headless !== "boolean") fail("headless must be a boolean.");
  const args = given.args ?? [];
  if (!Array.isArray(args) || args.length > 64 || !args.every((arg) => typeof arg === "string" && arg !== "")) {
    fail("args must be an array of at most 64 non-empty strings.");
  }
  const viewportGiven = given.viewport ?? { width: 1280, height: 720 };
  if (viewportGiven === null || typeof viewportGiven !== "object") fail("viewport must be { width, height }.");
  const viewport = Object.freeze({
    width: integer((viewportGiven as { width?: unknown }).width, "viewport.width", Number.NaN, 320, 3840),
    height: integer((viewportGiven as { height?: unknown }).height, "viewport.height", Number.NaN, 240, 2160),
  });
  const resourceAccess = given.resourceAccess ?? "same-origin";
  if (resourceAccess !== "same-origin" && resourceAccess !== "http")
    fail('resourceAccess must be "same-origin" or "http".');
  const origins = given.origins;
  if (origins !== undefined && (!Array.isArray(origins) || !origins.every((entry) => typeof entry === "string"))) {
    fail("origins must be an array of Origins such as http://127.0.0.1:3000.");
  }
  const profilesDirectory = fileDirectory(given.profilesDirectory, "profilesDirectory");
  const config: ManagedBrowserConfig = Object.freeze({
    ...(executablePath === undefined ? {} : { executablePath }),
    ...(channel === undefined ? {} : { channel }),
    headless,
    args: Object.freeze([...(args as string[])]),
    actionTimeoutMs: shared.actionTimeoutMs,
    navigationTimeoutMs: integer(given.navigationTimeoutMs, "navigationTimeoutMs", 30_000, 100, 600_000),
    viewport,
    resourceAccess,
    ...(profilesDirectory === undefined ? {} : { profilesDirectory }),
  });
  return Object.freeze({
    ...shared,
    mode: "managed",
    config,
    ...(origins === undefined ? {} : { origins: Object.freeze([...(origins as string[])]) }),
  });
}

function selected(given: Record<string, unknown>): ResolvedSelectedOptions {
  const shared = common(given, selectedKeys);
  const connection = given.connection as SelectedBrowserConnection | undefined;
  if (connection === null || typeof connection !== "object" || typeof connection.grant !== "function") {
    fail("selected mode needs connection: an ExistingChromeConnection.");
  }
  const tab = given.tab as SelectedBrowserTab | undefined;
  if (tab === null || typeof tab !== "object" || typeof tab.targetId !== "string" || typeof tab.url !== "string") {
    fail("selected mode needs tab: an entry of connection.listTabs().");
  }
  return Object.freeze({
    ...shared,
    mode: "selected",
    connection,
    tab: Object.freeze({ targetId: tab.targetId, url: tab.url, title: String(tab.title ?? "") }),
  });
}

/**
 * Checks `browser()`'s options and applies the defaults, frozen at declaration.
 *
 * @throws DeclarationError naming the option: unknown, malformed, out of bounds, `executablePath`
 * with `channel`, or a managed-only option in selected mode.
 */
export function resolveBrowserOptions(options: BrowserOptions): ResolvedManagedOptions | ResolvedSelectedOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    fail('options are required: { mode: "managed", ... } or { mode: "selected", connection, tab }.');
  }
  const given = options as unknown as Record<string, unknown>;
  if (given.mode === "managed") return managed(given);
  if (given.mode === "selected") return selected(given);
  return fail('mode must be "managed" or "selected".');
}
