import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { ExistingChromeError } from "./errors.js";

/**
 * Which Chrome to connect to: an explicit loopback browser-level DevTools WebSocket URL
 * (`ws://127.0.0.1:9222/devtools/browser/<id>`), or a `file:` URL of a Chrome profile
 * directory whose `DevToolsActivePort` file names it. Debugging must already be on: nothing
 * enables it, and no profile is looked for.
 */
export type ExistingChromeTarget = { readonly endpoint: string } | { readonly profileDirectory: URL | string };

function isLoopbackHost(hostname: string): boolean {
  if (hostname === "localhost" || hostname === "[::1]") return true;
  return isIP(hostname) === 4 && hostname.split(".")[0] === "127";
}

/** Checks `endpoint` is a loopback `ws://` browser-level URL; returns it canonicalised. */
export function checkEndpoint(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ExistingChromeError("existing_chrome_endpoint_refused", "The endpoint is not an absolute ws:// URL.");
  }
  if (url.protocol !== "ws:" || !isLoopbackHost(url.hostname) || url.username !== "" || url.password !== "") {
    throw new ExistingChromeError(
      "existing_chrome_endpoint_refused",
      "Only a loopback ws:// endpoint (127.0.0.0/8, ::1 or localhost) without credentials is connected to.",
    );
  }
  if (!url.pathname.startsWith("/devtools/browser/") || url.search !== "" || url.hash !== "") {
    throw new ExistingChromeError(
      "existing_chrome_endpoint_refused",
      "The endpoint must be Chrome's browser-level URL, ws://127.0.0.1:<port>/devtools/browser/<id> (its DevToolsActivePort file or /json/version names it).",
    );
  }
  return url.href;
}

function profileUrl(directory: URL | string): URL {
  let url: URL | undefined;
  try {
    url = typeof directory === "string" ? new URL(directory) : new URL(directory.href);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== "file:") {
    throw new ExistingChromeError(
      "existing_chrome_endpoint_refused",
      "profileDirectory must be a file: URL of a Chrome profile directory.",
    );
  }
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

/**
 * The browser-level endpoint named by `<profileDirectory>/DevToolsActivePort` (line 1 the
 * port, line 2 the path), on 127.0.0.1.
 */
export async function readDevToolsActivePort(directory: URL | string): Promise<string> {
  const file = new URL("DevToolsActivePort", profileUrl(directory));
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ExistingChromeError(
      "existing_chrome_debugging_off",
      `${file.href} cannot be read: remote debugging must already be on in that Chrome (chrome://inspect/#remote-debugging, or started with --remote-debugging-port); it is never turned on for you.`,
      { cause: error },
    );
  }
  const [portLine = "", pathLine = ""] = text.split(/\r?\n/);
  const port = Number(portLine.trim());
  if (!Number.isInteger(port) || port < 1 || port > 65_535 || !pathLine.trim().startsWith("/devtools/browser/")) {
    throw new ExistingChromeError(
      "existing_chrome_debugging_off",
      `${file.href} does not name a DevTools port and browser path; restart remote debugging in that Chrome.`,
    );
  }
  return checkEndpoint(`ws://127.0.0.1:${port}${pathLine.trim()}`);
}

/** The WebSocket URL `target` names. */
export function resolveEndpoint(target: ExistingChromeTarget): Promise<string> {
  if (target !== null && typeof target === "object" && "endpoint" in target) {
    return Promise.resolve().then(() => checkEndpoint(target.endpoint));
  }
  if (target !== null && typeof target === "object" && "profileDirectory" in target) {
    return readDevToolsActivePort(target.profileDirectory);
  }
  return Promise.reject(
    new ExistingChromeError("existing_chrome_endpoint_refused", "Give { endpoint } or { profileDirectory }."),
  );
}
