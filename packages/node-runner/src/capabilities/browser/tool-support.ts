import {
  errorMessage,
  type ToolAdmission,
  type ToolAdmitContext,
  type ToolContext,
  ToolInputError,
  type ToolOutput,
} from "@castellan/harness";
import type { BrowserOwner } from "./browser-owner.js";
import { BrowserToolError, isBrowserToolError } from "./errors.js";
import { maxPageBytes, observationPage } from "./observation-pages.js";
import type { StoredObservation } from "./observation-store.js";
import { originOf } from "./origins.js";
import { closedError, type SessionBrowser } from "./session-browser.js";
import type { BrowserObservation, BrowserSession } from "./types.js";

/**
 * What every browser tool's `admit` says a call will do, for permission hooks: the Origin it
 * acts on (the destination of a navigate, else the acted-on page; null when that page is not
 * HTTP(S)) and the model's id of the tab (null for a new tab or the first navigate).
 */
export interface BrowserAdmission {
  readonly origin: string | null;
  readonly tabId: string | null;
}

/** The admission of a call acting on the active page; `browser_not_open` before a managed browser opened. */
export function pageAdmission(owner: BrowserOwner, ctx: ToolAdmitContext): BrowserAdmission {
  const state = owner.session(ctx.sessionId);
  const selected = owner.options.sessionFactory.selectedTab;
  if (owner.mode === "selected" && selected) {
    return { origin: selected.origin, tabId: state.exposeTabId(selected.tabId) };
  }
  if (!state.isOpen) throw notOpenError();
  const active = state.activeTab();
  return { origin: (active && originOf(active.url)) ?? null, tabId: active?.tabId ?? null };
}

/** `browser_not_open`: a managed browser opens only on the first browser_navigate. */
export function notOpenError(): BrowserToolError {
  return new BrowserToolError(
    "browser_not_open",
    "No page is open in this Session yet; call browser_navigate with a URL first.",
  );
}

/** `input_invalid`: arguments JSON Schema cannot reject on its own. */
export function invalidInput(message: string): ToolInputError {
  return new ToolInputError("input_invalid", message);
}

/** The result of a refused or failed call: its code first, then what to do next; never a throw. */
export function failureOutput(error: unknown): ToolOutput {
  if (isBrowserToolError(error) || error instanceof ToolInputError) {
    return { content: error.resultText, isError: true };
  }
  const message = errorMessage(error);
  return {
    content: `browser_action_failed: ${message} Call browser_snapshot with no arguments to see the page, then try again.`,
    isError: true,
  };
}

/** The size of each text block returned. */
export function pageBytes(owner: BrowserOwner): number {
  return Math.min(owner.options.maxObservationBytes, maxPageBytes);
}

/** The first page of the latest observation, as a tool result. */
export function firstPage(owner: BrowserOwner, stored: StoredObservation): string {
  return observationPage(stored, 0, pageBytes(owner));
}

/**
 * Runs one approved call against its Session's state, re-checking what may have changed while
 * approval waited (a closed owner: `browser_closed`); any failure becomes an error result.
 */
export async function perform(
  owner: BrowserOwner,
  ctx: ToolContext,
  body: (state: SessionBrowser) => Promise<ToolOutput>,
): Promise<ToolOutput> {
  try {
    const state = owner.session(ctx.sessionId);
    // A call that completed returns what it did, even if close started meanwhile.
    return await owner.run(state, () => body(state));
  } catch (error) {
    return failureOutput(error);
  }
}

/** The Session's browser for an operation other than navigate: opened lazily only in selected mode. */
export async function browserFor(
  owner: BrowserOwner,
  state: SessionBrowser,
  signal: AbortSignal,
): Promise<BrowserSession> {
  if (state.closed) throw closedError();
  if (owner.mode !== "selected" && !state.isOpen) throw notOpenError();
  if (owner.mode === "selected") {
    const selected = owner.options.sessionFactory.selectedTab;
    if (selected) state.admitOrigin(selected.origin);
  }
  return await state.acquire(owner.options.sessionFactory, signal);
}

/**
 * Runs one browser operation that answers with an observation: the latest observation ends
 * first (even if the operation fails), and the answer becomes the new one.
 */
export async function observe(
  owner: BrowserOwner,
  state: SessionBrowser,
  operation: () => Promise<BrowserObservation>,
): Promise<string> {
  state.latest = undefined;
  const observation = await operation();
  if (state.closed) throw closedError();
  return firstPage(owner, state.record(observation));
}

/** What an admit returns: the admission as JSON, and the input when admit replaced it. */
export function admitted<Input>(admission: BrowserAdmission, input?: Input): ToolAdmission<Input> {
  const json = { origin: admission.origin, tabId: admission.tabId };
  return input === undefined ? { admission: json } : { admission: json, input };
}
