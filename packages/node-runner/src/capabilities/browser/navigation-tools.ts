import { defineTool, type Tool } from "@castellan/harness";
import type { BrowserOwner } from "./browser-owner.js";
import { BrowserToolError } from "./errors.js";
import { originOf } from "./origins.js";
import { browserToolSchemas } from "./schemas.js";
import type { SessionBrowser } from "./session-browser.js";
import { admitted, browserFor, notOpenError, observe, pageAdmission, perform } from "./tool-support.js";

/** At most this many tabs per Session (`browser_tab_limit`). */
export const maxBrowserTabs = 8;

/** The input of `browser_navigate`. */
export interface BrowserNavigateInput {
  /** An `http:`/`https:` URL of at most 2,048 characters, without credentials; admit replaces it with its canonical form. */
  readonly url: string;
  /** Open a new active tab, keeping the current page (at most 8 tabs). Default false. */
  readonly newTab?: boolean;
}

/** The input of `browser_switch_tab`. */
export interface BrowserSwitchTabInput {
  /** A `tabId` of the latest tab list (at most 256 characters). */
  readonly tabId: string;
}

function unsupported(what: string): BrowserToolError {
  return new BrowserToolError(
    "browser_unsupported",
    `${what} is not supported on a host-selected tab; keep working in the granted tab.`,
  );
}

function checkTabRoom(state: SessionBrowser): void {
  if (state.tabs.length >= maxBrowserTabs) {
    throw new BrowserToolError(
      "browser_tab_limit",
      `This Session already has ${state.tabs.length} tabs, the most allowed; navigate in an open tab instead.`,
    );
  }
}

function checkSelectedOrigin(owner: BrowserOwner, origin: string): void {
  const selected = owner.options.sessionFactory.selectedTab;
  if (owner.mode === "selected" && selected && origin !== selected.origin) {
    throw new BrowserToolError(
      "browser_origin_not_admitted",
      `${origin} is not the granted tab's Origin; only ${selected.origin} may be opened in it.`,
    );
  }
}

/** `browser_navigate`: admits the URL's Origin, then opens it (opening the Session's browser first if needed). */
export function navigateTool(owner: BrowserOwner): Tool<BrowserNavigateInput> {
  return defineTool<BrowserNavigateInput>({
    name: "browser_navigate",
    description:
      "Open an http(s) URL in the Session's browser (the first call starts it). newTab: true opens it in a new active tab and keeps the current page. Returns the observation of the page.",
    inputSchema: browserToolSchemas.browser_navigate,
    admit(input, ctx) {
      const state = owner.session(ctx.sessionId);
      const url = owner.options.origins.admit(input.url);
      checkSelectedOrigin(owner, url.origin);
      const newTab = input.newTab === true;
      if (newTab && owner.mode === "selected") throw unsupported("newTab");
      let tabId: string | null = null;
      if (state.isOpen && newTab) checkTabRoom(state);
      else if (owner.mode === "selected") tabId = pageAdmission(owner, ctx).tabId;
      else if (state.isOpen) tabId = state.activeTab()?.tabId ?? null;
      return admitted({ origin: url.origin, tabId }, { ...input, url: url.url });
    },
    execute: (input, ctx) =>
      perform(owner, ctx, async (state) => {
        const url = owner.options.origins.admit(input.url);
        checkSelectedOrigin(owner, url.origin);
        const wasOpen = state.isOpen;
        const newTab = input.newTab === true && wasOpen;
        if (input.newTab === true && owner.mode === "selected") throw unsupported("newTab");
        if (newTab) checkTabRoom(state);
        state.latest = undefined;
        // The admitted set grows only here, as an approved navigate executes.
        state.admitOrigin(url.origin);
        const browser = await state.acquire(owner.options.sessionFactory, ctx.signal);
        return await observe(owner, state, () =>
          browser.navigate({ url: url.url, origin: url.origin, newTab }, { signal: ctx.signal }),
        );
      }),
  });
}

function knownTab(state: SessionBrowser, tabId: string) {
  const tab = state.tabs.find((candidate) => candidate.tabId === tabId);
  if (!tab) {
    throw new BrowserToolError(
      "browser_tab_unknown",
      `${JSON.stringify(tabId)} is not in the latest tab list; use a tabId from the latest observation's tabs.`,
    );
  }
  return tab;
}

/** `browser_switch_tab`: activates a tab of the latest tab list without navigating it. */
export function switchTabTool(owner: BrowserOwner): Tool<BrowserSwitchTabInput> {
  return defineTool<BrowserSwitchTabInput>({
    name: "browser_switch_tab",
    description:
      "Activate an open tab by a tabId from the latest observation's tabs list, without navigating it. Returns its observation.",
    inputSchema: browserToolSchemas.browser_switch_tab,
    admit(input, ctx) {
      if (owner.mode === "selected") throw unsupported("browser_switch_tab");
      const state = owner.session(ctx.sessionId);
      if (!state.isOpen) throw notOpenError();
      const tab = knownTab(state, input.tabId);
      return admitted({ origin: originOf(tab.url) ?? null, tabId: tab.tabId });
    },
    execute: (input, ctx) =>
      perform(owner, ctx, async (state) => {
        if (owner.mode === "selected") throw unsupported("browser_switch_tab");
        const browser = await browserFor(owner, state, ctx.signal);
        const tab = knownTab(state, input.tabId);
        return await observe(owner, state, () => browser.switchTab(tab.adapterTabId, { signal: ctx.signal }));
      }),
  });
}
