import {
  type AdmittedOrigins,
  type BrowserAction,
  type BrowserCapture,
  type BrowserCaptureRequest,
  type BrowserNavigation,
  type BrowserObservation,
  type BrowserOperationOptions,
  type BrowserSession,
  type BrowserTab,
  BrowserToolError,
  type BrowserViewport,
} from "@castellan/node-runner";
import type { Page } from "playwright-core";
import { performAction } from "./actions.js";
import { takeAiSnapshot } from "./ai-snapshot.js";
import { captureTab } from "./capture.js";
import { pageFailure } from "./errors.js";
import { readFocusedElement } from "./focus.js";
import type { LaunchedBrowser } from "./launch.js";
import type { ManagedBrowserConfig } from "./launch-options.js";
import { pageOriginNotAdmitted } from "./not-admitted.js";
import { installRouting } from "./routing.js";
import { settleAfterAction } from "./settle.js";
import { ManagedTab } from "./tab.js";

/** One Session's managed Chromium: its tabs (`t1`, `t2`, …), routing and page operations. */
export class ManagedBrowserSession implements BrowserSession {
  readonly #browser: LaunchedBrowser;
  readonly #config: ManagedBrowserConfig;
  readonly #admitted: AdmittedOrigins;
  readonly #tabs: ManagedTab[] = [];
  readonly #pages = new WeakMap<Page, ManagedTab>();
  #active: ManagedTab | undefined;
  #nextTab = 1;
  #creating: Promise<Page> | undefined;
  /** The Origin of the navigate under way, admitted for its own request even before the owner records it. */
  #navigatingTo: string | undefined;
  #closing: Promise<void> | undefined;
  #operation: Promise<unknown> = Promise.resolve();

  private constructor(browser: LaunchedBrowser, config: ManagedBrowserConfig, admitted: AdmittedOrigins) {
    this.#browser = browser;
    this.#config = config;
    this.#admitted = admitted;
  }

  /** Wraps a launched browser: installs routing, closes popups, adopts a persistent profile's first page. */
  static async create(
    browser: LaunchedBrowser,
    config: ManagedBrowserConfig,
    admittedOrigins: AdmittedOrigins,
  ): Promise<ManagedBrowserSession> {
    const session = new ManagedBrowserSession(browser, config, admittedOrigins);
    const context = browser.context;
    context.setDefaultTimeout(config.actionTimeoutMs);
    context.setDefaultNavigationTimeout(config.navigationTimeoutMs);
    await installRouting(context, {
      resourceAccess: config.resourceAccess,
      navigationTimeoutMs: config.navigationTimeoutMs,
      admitted: (origin) => origin === session.#navigatingTo || admittedOrigins.has(origin),
      tabOf: (page) => session.#pages.get(page),
    });
    context.on("page", (page) => void session.#closeUnlessOwned(page));
    // A persistent profile opens with a blank page; it becomes the first tab at the first navigate.
    for (const page of context.pages()) if (page.url() !== "about:blank") await page.close().catch(() => {});
    return session;
  }

  async #closeUnlessOwned(page: Page): Promise<void> {
    const created = await this.#creating?.catch(() => undefined);
    if (page === created || this.#pages.has(page)) return;
    if (this.#browser.persistent && this.#tabs.length === 0 && page.url() === "about:blank") return;
    // Popups and target=_blank windows are closed at once and never listed.
    await page.close().catch(() => {});
  }

  #notAdmitted(origin: string): BrowserToolError {
    return pageOriginNotAdmitted(origin, this.#admitted, this.#tabs.filter((tab) => !tab.closed).length);
  }

  #adopt(page: Page): ManagedTab {
    const tab = new ManagedTab(`t${this.#nextTab++}`, page);
    this.#tabs.push(tab);
    this.#pages.set(page, tab);
    page.on("close", () => {
      const index = this.#tabs.indexOf(tab);
      if (index >= 0) this.#tabs.splice(index, 1);
      if (this.#active === tab) this.#active = this.#tabs.at(-1);
    });
    return tab;
  }

  async #newTab(): Promise<ManagedTab> {
    const context = this.#browser.context;
    const blank = this.#browser.persistent && this.#tabs.length === 0 ? context.pages()[0] : undefined;
    if (blank) return this.#adopt(blank);
    this.#creating = context.newPage();
    try {
      return this.#adopt(await this.#creating);
    } finally {
      this.#creating = undefined;
    }
  }

  #activeTab(): ManagedTab {
    const tab = this.#active;
    if (tab === undefined || tab.closed) {
      throw new BrowserToolError("browser_not_open", "No tab is open; open a page with browser_navigate.");
    }
    return tab;
  }

  #serial<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T> {
    if (this.#closing) return Promise.reject(new BrowserToolError("browser_closed", "This browser was closed."));
    const next = this.#operation.then(() => {
      signal.throwIfAborted();
      return run();
    });
    this.#operation = next.catch(() => {});
    return next;
  }

  #listTabs(): BrowserTab[] {
    return this.#tabs.map((tab) => ({
      tabId: tab.tabId,
      url: tab.page.url(),
      title: tab.title,
      active: tab === this.#active,
    }));
  }

  async #viewport(tab: ManagedTab): Promise<BrowserViewport | undefined> {
    try {
      const [width, height] = await tab.page.evaluate(() => [window.innerWidth, window.innerHeight]);
      return typeof width === "number" && typeof height === "number" ? { width, height } : undefined;
    } catch {
      return undefined;
    }
  }

  /** What an observation and a capture both say of the page: URL, title (kept as the tab's last), tabs, viewport. */
  async #pageFacts(tab: ManagedTab): Promise<Pick<BrowserObservation, "url" | "title" | "tabs" | "viewport">> {
    const [viewport, title] = await Promise.all([this.#viewport(tab), tab.page.title()]);
    tab.title = title;
    return {
      url: tab.page.url(),
      title,
      tabs: this.#listTabs(),
      ...(viewport === undefined ? {} : { viewport }),
    };
  }

  async #observe(tab: ManagedTab, signal: AbortSignal): Promise<BrowserObservation> {
    try {
      // The viewport and title touch no ref map: read beside the focus read and the snapshot.
      const facts = this.#pageFacts(tab);
      facts.catch(() => {});
      // Focus first: the AI snapshot replaces the frame's ref map, the focus read does not touch it.
      const focusedElement = await readFocusedElement(
        this.#browser.context,
        tab.page,
        this.#config.actionTimeoutMs,
      ).catch(() => null);
      const snapshot = await takeAiSnapshot(tab.page, { timeout: this.#config.actionTimeoutMs, signal });
      return { ...(await facts), focusScope: "accessibility-tree", focusedElement, snapshot };
    } catch (error) {
      throw pageFailure(error, "Reading the page", signal);
    }
  }

  navigate(navigation: BrowserNavigation, { signal }: BrowserOperationOptions): Promise<BrowserObservation> {
    return this.#serial(signal, async () => {
      const tab = navigation.newTab || this.#active === undefined ? await this.#newTab() : this.#activeTab();
      this.#active = tab;
      await tab.page.bringToFront().catch(() => {});
      tab.blockedOrigin = undefined;
      this.#navigatingTo = navigation.origin;
      try {
        await tab.page.goto(navigation.url, {
          waitUntil: "domcontentloaded",
          timeout: this.#config.navigationTimeoutMs,
        });
      } catch (error) {
        if (tab.blockedOrigin !== undefined) throw this.#notAdmitted(tab.blockedOrigin);
        throw pageFailure(error, `Opening ${navigation.origin}`, signal);
      } finally {
        this.#navigatingTo = undefined;
      }
      await settleAfterAction(tab, this.#config.navigationTimeoutMs, signal);
      if (tab.blockedOrigin !== undefined) throw this.#notAdmitted(tab.blockedOrigin);
      return this.#observe(tab, signal);
    });
  }

  observe({ signal }: BrowserOperationOptions): Promise<BrowserObservation> {
    return this.#serial(signal, () => this.#observe(this.#activeTab(), signal));
  }

  switchTab(tabId: string, { signal }: BrowserOperationOptions): Promise<BrowserObservation> {
    return this.#serial(signal, async () => {
      const tab = this.#tabs.find((candidate) => candidate.tabId === tabId && !candidate.closed);
      if (tab === undefined) {
        throw new BrowserToolError(
          "browser_tab_unknown",
          `No tab ${tabId} is open; use a tabId from the latest tab list.`,
        );
      }
      this.#active = tab;
      await tab.page.bringToFront().catch(() => {});
      return this.#observe(tab, signal);
    });
  }

  act(action: BrowserAction, { signal }: BrowserOperationOptions): Promise<BrowserObservation> {
    return this.#serial(signal, async () => {
      const tab = this.#activeTab();
      tab.blockedOrigin = undefined;
      await performAction(tab.page, action, { timeout: this.#config.actionTimeoutMs, signal });
      await settleAfterAction(tab, this.#config.navigationTimeoutMs, signal);
      if (tab.blockedOrigin !== undefined) throw this.#notAdmitted(tab.blockedOrigin);
      return this.#observe(tab, signal);
    });
  }

  capture(request: BrowserCaptureRequest, { signal }: BrowserOperationOptions): Promise<BrowserCapture> {
    return this.#serial(signal, async () => {
      const tab = this.#activeTab();
      try {
        const png = await captureTab(tab, request, { timeout: this.#config.actionTimeoutMs, signal });
        return {
          ...(await this.#pageFacts(tab)),
          colorScheme: tab.colorScheme,
          reducedMotion: tab.reducedMotion,
          png,
        };
      } catch (error) {
        throw pageFailure(error, "Capturing the page", signal);
      }
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#operation.then(() => this.#browser.close());
    return this.#closing;
  }
}
