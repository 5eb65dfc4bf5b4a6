// The browser adapter contract: what the Session-scoped browser tools ask of a browser, and
// what it answers. `@castellan/connectors/browser` implements it on playwright-core (a managed
// Chromium) and over CDP (a tab of a Chrome the host runs); a host may bring its own.

/** The ancestor a target is looked for within; it must match exactly one element. */
export interface BrowserScope {
  readonly role: string;
  /** Default: any name. */
  readonly name?: string;
  /** Exact, case-sensitive name match. Default false: a case-insensitive substring. */
  readonly exact?: boolean;
}

/**
 * An element named the way the page's accessibility tree names it: role and accessible name,
 * optionally narrowed by the latest observation's `ref` (intersected, never overriding) and
 * an ancestor `within`. Unnamed controls are `name: ""` with `exact: true`.
 */
export interface BrowserTarget {
  readonly role: string;
  readonly name: string;
  /** Exact, case-sensitive name match. Default false: a case-insensitive substring. */
  readonly exact?: boolean;
  /** An opaque ref of the latest observation. */
  readonly ref?: string;
  readonly within?: BrowserScope;
}

/** One page action. Every one is followed by a fresh observation. */
export type BrowserAction =
  | { readonly kind: "click"; readonly target: BrowserTarget }
  | { readonly kind: "hover"; readonly target: BrowserTarget }
  /** Replaces the control's value (at most 10,000 characters). */
  | { readonly kind: "fill"; readonly target: BrowserTarget; readonly value: string }
  /** The native `<select>` option with this visible label, firing `input` and `change`. */
  | { readonly kind: "select"; readonly target: BrowserTarget; readonly label: string }
  /** One Playwright key expression (`Enter`, `Shift+Tab`) to the focused element. */
  | { readonly kind: "key"; readonly key: string }
  /** Real pointer input from `source` to `target`, never a fabricated drop. */
  | { readonly kind: "drag"; readonly source: BrowserTarget; readonly target: BrowserTarget };

/** One open tab, as the tab list shows it (no background DOM is read). */
export interface BrowserTab {
  readonly tabId: string;
  readonly url: string;
  /** The last title observed for this document; null before observation and after a main-frame navigation. */
  readonly title: string | null;
  readonly active: boolean;
}

/** The element that has focus, as observed. */
export interface BrowserFocusedElement {
  readonly role: string;
  readonly name: string;
  readonly value?: string;
}

/** The layout viewport in CSS pixels (`innerWidth` / `innerHeight`), read fresh each time. */
export interface BrowserViewport {
  readonly width: number;
  readonly height: number;
}

/** What a browser shows of its active page after an operation. */
export interface BrowserObservation {
  readonly url: string;
  readonly title: string;
  readonly tabs: readonly BrowserTab[];
  /** Omitted by an adapter that cannot measure it: the observation then says so. */
  readonly viewport?: BrowserViewport;
  /** `accessibility-tree`: Chromium's native tree; `dom-element`: the DOM's focused container. */
  readonly focusScope: "accessibility-tree" | "dom-element";
  /** Null when no focused node was observed (not proof that the document has no focus). */
  readonly focusedElement: BrowserFocusedElement | null;
  /** The ARIA snapshot, elements marked `[ref=<ref>]` with the adapter's refs for this observation. */
  readonly snapshot: string;
  /** Lines shown after the snapshot, such as content the adapter does not show. Default none. */
  readonly notes?: readonly string[];
}

/** What `browser_capture` asks for: a viewport and media preferences, kept for the tab until the next capture. */
export interface BrowserCaptureRequest {
  /** Integer CSS pixels, 320-3840; with `height`. */
  readonly width?: number;
  /** Integer CSS pixels, 240-2160; with `width`. */
  readonly height?: number;
  readonly colorScheme?: "light" | "dark";
  readonly reducedMotion?: "reduce" | "no-preference";
}

/** A capture: the visible viewport as PNG at device scale 1, and the page it shows. */
export interface BrowserCapture {
  readonly url: string;
  readonly title: string;
  readonly tabs: readonly BrowserTab[];
  readonly viewport?: BrowserViewport;
  readonly colorScheme: "light" | "dark";
  readonly reducedMotion: "reduce" | "no-preference";
  readonly png: Uint8Array;
}

/** What every operation is given: aborted with the Run, which aborts the operation. */
export interface BrowserOperationOptions {
  readonly signal: AbortSignal;
}

/** A navigation request, its URL admitted and canonicalised by the Origin authority. */
export interface BrowserNavigation {
  readonly url: string;
  /** The destination's canonical Origin. */
  readonly origin: string;
  /** Open a new active tab, keeping the current page. */
  readonly newTab: boolean;
}

/**
 * One Session's browser. Operations are called one at a time, in call order; each resolves
 * with what the active page shows afterwards, or rejects with a {@link BrowserToolError}.
 */
export interface BrowserSession {
  navigate(navigation: BrowserNavigation, options: BrowserOperationOptions): Promise<BrowserObservation>;
  observe(options: BrowserOperationOptions): Promise<BrowserObservation>;
  switchTab(tabId: string, options: BrowserOperationOptions): Promise<BrowserObservation>;
  act(action: BrowserAction, options: BrowserOperationOptions): Promise<BrowserObservation>;
  capture(request: BrowserCaptureRequest, options: BrowserOperationOptions): Promise<BrowserCapture>;
  /** Releases the browser (or the grant); idempotent. Resolves once its operations settled. */
  close(): Promise<void>;
}

/** What a factory's `open` is given. */
export interface BrowserSessionOpenRequest {
  /** The durable Session id (a persistent profile is keyed by it). */
  readonly sessionId: string;
  readonly signal: AbortSignal;
  /** The Session's admitted Origins, live: it grows only by approved navigates. */
  readonly admittedOrigins: AdmittedOrigins;
}

/** A Session's admitted Origins, as an adapter reads them when it routes a request. */
export interface AdmittedOrigins {
  has(origin: string): boolean;
  list(): readonly string[];
  /**
   * Whether `browser_navigate` could admit `origin` (approval still asks): true when the
   * declared Origin list holds it or none was declared. An adapter refusing a page's move to
   * `origin` suggests navigating there only when this is true, so a remedy it names is never
   * itself refused.
   */
  admissible(origin: string): boolean;
}

/**
 * Opens one Session's browser, on the first approved navigate (managed) or the first approved
 * operation (selected).
 */
export interface BrowserSessionFactory {
  open(request: BrowserSessionOpenRequest): Promise<BrowserSession>;
  /**
   * `managed` (default): nothing but `browser_navigate` works before the first navigate.
   * `selected`: a host-picked tab, granted with its Origin; any tool may come first.
   */
  readonly mode?: "managed" | "selected";
  /** For `selected`: the granted tab's id and canonical Origin. */
  readonly selectedTab?: { readonly tabId: string; readonly origin: string };
}
