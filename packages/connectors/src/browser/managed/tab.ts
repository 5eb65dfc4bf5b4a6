import type { Page, Request } from "playwright-core";

/** One tab the adapter opened, with what it keeps about it between operations. */
export class ManagedTab {
  /** The last title observed for the current document; null before observation and after a main-frame navigation. */
  title: string | null = null;
  /** The capture preferences, kept for this tab until the next capture changes them. */
  colorScheme: "light" | "dark" = "light";
  reducedMotion: "reduce" | "no-preference" = "no-preference";
  /** The Origin of the last top-level navigation the routing refused, since the operation began. */
  blockedOrigin: string | undefined;
  /** Main-frame navigation requests not yet finished. */
  readonly pendingNavigations = new Set<Request>();
  /** Redirects the routing turned into a page-side navigation, not yet requested. */
  pendingRedirects = 0;
  closed = false;

  constructor(
    readonly tabId: string,
    readonly page: Page,
  ) {
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) this.title = null;
    });
    page.on("request", (request) => {
      if (!this.isMainFrameNavigation(request)) return;
      this.pendingNavigations.add(request);
      if (this.pendingRedirects > 0) this.pendingRedirects -= 1;
    });
    const settled = (request: Request) => this.pendingNavigations.delete(request);
    page.on("requestfinished", settled);
    page.on("requestfailed", settled);
    page.on("close", () => {
      this.closed = true;
      this.pendingNavigations.clear();
      this.pendingRedirects = 0;
    });
  }

  /** True for a top-level navigation of this tab's page. */
  isMainFrameNavigation(request: Request): boolean {
    try {
      return request.isNavigationRequest() && request.frame() === this.page.mainFrame();
    } catch {
      // A service worker's request has no frame.
      return false;
    }
  }

  /** True while a top-level navigation of this tab is on its way. */
  get navigating(): boolean {
    return this.pendingNavigations.size > 0 || this.pendingRedirects > 0;
  }
}
