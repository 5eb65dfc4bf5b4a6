import { BrowserToolError } from "./errors.js";
import { uniqueId } from "./ids.js";
import { newObservationId, type StoredObservation, storeObservation } from "./observation-store.js";
import { observationText } from "./observation-text.js";
import { exposeRefs } from "./refs.js";
import type {
  AdmittedOrigins,
  BrowserObservation,
  BrowserSession,
  BrowserSessionFactory,
  BrowserTab,
} from "./types.js";

/** A tab of the latest tab list: the model's id for it and the adapter's. */
export interface KnownTab extends BrowserTab {
  readonly adapterTabId: string;
}

/**
 * One Session's browser state, in memory only: its admitted Origins, the browser once opened,
 * the latest tab list and the latest observation. Nothing of it is saved or restored.
 */
export class SessionBrowser {
  /** Prefixes the tab ids the model sees, so an id from another browser (or history) is unknown here. */
  private readonly tabPrefix = uniqueId("t");
  private readonly admitted = new Set<string>();
  private browser: BrowserSession | undefined;
  private opening: Promise<BrowserSession> | undefined;
  private closing: Promise<void> | undefined;
  private readonly operations = new Set<Promise<unknown>>();
  private knownTabs: readonly KnownTab[] = [];
  /** The one observation kept; any browser operation ends it. */
  latest: StoredObservation | undefined;

  /** The live view of the admitted Origins a factory is given. */
  readonly admittedOrigins: AdmittedOrigins = Object.freeze({
    has: (origin: string) => this.admitted.has(origin),
    list: () => Object.freeze([...this.admitted]),
    admissible: (origin: string) => this.admissible(origin),
  });

  /**
   * @param admissible whether the Origin authority would admit an Origin on `browser_navigate`
   *   (see {@link AdmittedOrigins.admissible}); default: every Origin.
   */
  constructor(
    readonly sessionId: string,
    private readonly maxObservationBytes: number,
    private readonly admissible: (origin: string) => boolean = () => true,
  ) {}

  /** True once a browser was opened (and not closed). */
  get isOpen(): boolean {
    return this.browser !== undefined && this.closing === undefined;
  }

  /** True once close started. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** The latest tab list an operation reported (kept when a later one fails). */
  get tabs(): readonly KnownTab[] {
    return this.knownTabs;
  }

  /** The model's id for an adapter tab id. */
  exposeTabId(adapterTabId: string): string {
    return `${this.tabPrefix}.${adapterTabId}`;
  }

  /** The active tab of the latest tab list (else its first). */
  activeTab(): KnownTab | undefined {
    return this.knownTabs.find((tab) => tab.active) ?? this.knownTabs[0];
  }

  /** Adds an Origin an approved navigate is about to reach. */
  admitOrigin(origin: string): void {
    this.admitted.add(origin);
  }

  /** The Session's browser, opening it through `factory` on first use (one open at a time). */
  async acquire(factory: BrowserSessionFactory, signal: AbortSignal): Promise<BrowserSession> {
    if (this.closing) throw closedError();
    if (this.browser) return this.browser;
    this.opening ??= factory.open({ sessionId: this.sessionId, signal, admittedOrigins: this.admittedOrigins });
    const opening = this.opening;
    let browser: BrowserSession;
    try {
      browser = await opening;
    } catch (error) {
      if (this.opening === opening) this.opening = undefined;
      throw error;
    }
    // Closed while it opened: release() awaits the same open and closes what it gave.
    if (this.closing) throw closedError();
    this.browser = browser;
    return browser;
  }

  /** Runs `operation` as one of this Session's in-flight operations, which close waits for. */
  async track<T>(operation: () => Promise<T>): Promise<T> {
    const running = operation();
    this.operations.add(running);
    try {
      return await running;
    } finally {
      this.operations.delete(running);
    }
  }

  /** Remembers the tab list `tabs` reports, under the model's ids, and returns it. */
  rememberTabs(tabs: unknown): readonly KnownTab[] {
    const list = Array.isArray(tabs) ? (tabs as BrowserTab[]) : [];
    this.knownTabs = Object.freeze(
      list.map((tab) => ({
        tabId: this.exposeTabId(String(tab.tabId)),
        adapterTabId: String(tab.tabId),
        url: String(tab.url),
        title: typeof tab.title === "string" ? tab.title : null,
        active: tab.active === true,
      })),
    );
    return this.knownTabs;
  }

  /** Stores `observation` as the latest, refs and tab ids made the model's. */
  record(observation: BrowserObservation): StoredObservation {
    const observationId = newObservationId();
    const tabs = this.rememberTabs(observation?.tabs).map(({ adapterTabId: _, ...tab }) => tab);
    const text = observationText({
      ...observation,
      tabs,
      snapshot: exposeRefs(String(observation?.snapshot ?? ""), observationId),
    });
    this.latest = storeObservation(observationId, text, this.maxObservationBytes);
    return this.latest;
  }

  /** Stores text without refs (a capture's metadata) as the latest observation. */
  recordText(text: string): StoredObservation {
    this.latest = storeObservation(newObservationId(), text, this.maxObservationBytes);
    return this.latest;
  }

  /** Ends the browser and waits for this Session's operations; idempotent. */
  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }

  private async release(): Promise<void> {
    this.latest = undefined;
    this.knownTabs = [];
    const browser = this.browser ?? (await this.opening?.catch(() => undefined));
    this.browser = undefined;
    const [closed] = await Promise.allSettled([browser?.close(), ...this.operations]);
    if (closed?.status === "rejected") throw closed.reason;
  }
}

/** `browser_closed`: the owner or the Session's browser is closed. */
export function closedError(): BrowserToolError {
  return new BrowserToolError(
    "browser_closed",
    "The browser tools are closed for this Session; no browser is available, so stop using browser tools.",
  );
}
