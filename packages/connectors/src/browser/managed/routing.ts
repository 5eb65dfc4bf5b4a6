import { originOf } from "@castellan/node-runner";
import type { BrowserContext, Page, Request, Route, WebSocketRoute } from "playwright-core";
import type { ManagedTab } from "./tab.js";

/** What the routing asks of the session: the live admitted set and which tab a page is. */
export interface RoutingPolicy {
  readonly resourceAccess: "same-origin" | "http";
  readonly navigationTimeoutMs: number;
  /** True for an Origin the Session admitted (or is admitting by the navigate under way). */
  admitted(origin: string): boolean;
  /** The adapter's tab showing `page`; undefined for a popup about to be closed. */
  tabOf(page: Page): ManagedTab | undefined;
}

function frameOf(request: Request) {
  try {
    return request.frame();
  } catch {
    // A service worker's request has no frame (and service workers are blocked).
    return undefined;
  }
}

/** A document that continues an admitted redirect from the page, so its next hop is routed (and checked) again. */
function redirectDocument(href: string): string {
  const target = JSON.stringify(href).replace(/</g, "\\u003c");
  // After load, so the navigation that fetched it settles before the next hop starts.
  return `<!doctype html><meta name="referrer" content="no-referrer"><script>addEventListener("load", () => setTimeout(() => location.replace(${target}), 0))</script>`;
}

/**
 * Stops a top-level navigation and keeps the page: Chromium commits no error page for
 * `ERR_ABORTED` (a 204 would keep it too, but leaves Playwright's click waiting for it).
 */
async function refuseNavigation(route: Route, tab: ManagedTab | undefined, origin: string): Promise<void> {
  if (tab) tab.blockedOrigin = origin;
  await route.abort("aborted");
}

async function routeTopLevel(route: Route, request: Request, tab: ManagedTab | undefined, policy: RoutingPolicy) {
  const url = new URL(request.url());
  const origin = originOf(url.href);
  if (origin === undefined || !policy.admitted(origin)) return refuseNavigation(route, tab, origin ?? url.protocol);
  // Chromium follows redirects without routing the next hop, so the adapter fetches the
  // response itself and checks a redirect's destination before the browser sees it.
  let response: Awaited<ReturnType<Route["fetch"]>>;
  try {
    response = await route.fetch({ maxRedirects: 0, timeout: policy.navigationTimeoutMs });
  } catch {
    await route.abort("failed").catch(() => {});
    return;
  }
  const location = response.headers().location;
  if (response.status() >= 300 && response.status() < 400 && location !== undefined) {
    let target: URL;
    try {
      target = new URL(location, url);
    } catch {
      return route.fulfill({ response });
    }
    const targetOrigin = originOf(target.href);
    if (targetOrigin === undefined || !policy.admitted(targetOrigin)) {
      return refuseNavigation(route, tab, targetOrigin ?? target.protocol);
    }
    if (tab) tab.pendingRedirects += 1;
    return route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: redirectDocument(target.href) });
  }
  return route.fulfill({ response });
}

function subresourceAllowed(url: string, policy: RoutingPolicy): boolean {
  const parsed = URL.parse(url);
  if (parsed === null) return false;
  if (parsed.protocol === "data:" || parsed.protocol === "blob:") return true;
  if (policy.resourceAccess === "http") return parsed.protocol === "http:" || parsed.protocol === "https:";
  const origin = originOf(parsed.href);
  return origin !== undefined && policy.admitted(origin);
}

function webSocketOrigin(url: string): string | undefined {
  const parsed = URL.parse(url);
  if (parsed === null || (parsed.protocol !== "ws:" && parsed.protocol !== "wss:")) return undefined;
  parsed.protocol = parsed.protocol === "ws:" ? "http:" : "https:";
  return originOf(parsed.href);
}

/**
 * Routes every request of the context: top-level navigations and their redirects reach only
 * admitted Origins (a refused one leaves the page and records the Origin on its tab);
 * subresources, frames and WebSockets reach admitted Origins (`same-origin`) or any HTTP(S) /
 * WS(S) (`http`); `data:` and `blob:` are not restricted.
 */
export async function installRouting(context: BrowserContext, policy: RoutingPolicy): Promise<void> {
  await context.route("**/*", async (route, request) => {
    try {
      const frame = frameOf(request);
      if (request.isNavigationRequest() && frame !== undefined && frame.parentFrame() === null) {
        await routeTopLevel(route, request, policy.tabOf(frame.page()), policy);
        return;
      }
      if (subresourceAllowed(request.url(), policy)) await route.continue();
      else await route.abort("blockedbyclient");
    } catch {
      // The page or context closed while the request was routed.
    }
  });
  if (policy.resourceAccess === "same-origin") {
    await context.routeWebSocket(/.*/, (socket: WebSocketRoute) => {
      const origin = webSocketOrigin(socket.url());
      if (origin !== undefined && policy.admitted(origin)) socket.connectToServer();
      else void socket.close({ code: 1008, reason: "Origin not admitted" }).catch(() => {});
    });
  }
}
