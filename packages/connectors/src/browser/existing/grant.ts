// A granted tab as a BrowserSession: acquired on its first operation, operations one at a
// time, each on its own attached CDP session; revoked for good when the tab leaves the
// picked Origin, closes, or the connection closes.
import {
  type BrowserAction,
  type BrowserCapture,
  type BrowserCaptureRequest,
  type BrowserNavigation,
  type BrowserObservation,
  type BrowserOperationOptions,
  type BrowserSession,
  BrowserToolError,
  originOf,
} from "@castellan/node-runner";
import { readAxTree } from "./ax-tree.js";
import { CdpClosedError, CdpCommandError, type CdpTransport } from "./cdp-transport.js";
import { fill, selectOption } from "./fields.js";
import { pressKey } from "./keys.js";
import { locate } from "./locate.js";
import { settleNavigation, waitForLoad } from "./navigation.js";
import { measureViewport, readMedia, readObservation, tabList } from "./observe.js";
import { guarded, type PageSession, withAttachedTarget } from "./operation.js";
import { click, drag, hover } from "./pointer.js";

/** The default time one operation of a grant may take. */
export const defaultActionTimeoutMs = 10_000;

/** Options of `ExistingChromeConnection.grant`. */
export interface ExistingChromeGrantOptions {
  /** The longest one operation (attach to detach) may take, in ms. Default 10,000; 1-600,000. */
  readonly actionTimeoutMs?: number;
}

interface TargetInfo {
  readonly targetId: string;
  readonly url: string;
  readonly title: string;
}

/** A selected Chrome tab granted to one Session, as a {@link BrowserSession}. */
export class ExistingChromeGrant implements BrowserSession {
  readonly #transport: CdpTransport;
  readonly #targetId: string;
  /** The picked tab's canonical HTTP(S) Origin: the only one this grant reads and navigates. */
  readonly origin: string;
  readonly #timeoutMs: number;
  /** Settles when every operation called so far has ended; never rejects. */
  #queue: Promise<void> = Promise.resolve();
  #revoked: string | undefined;
  #closed = false;
  #refs = new Map<string, number>();
  readonly #stopWatching: () => void;

  /** @internal Made by `ExistingChromeConnection.grant`. */
  constructor(transport: CdpTransport, targetId: string, origin: string, timeoutMs: number) {
    this.#transport = transport;
    this.#targetId = targetId;
    this.origin = origin;
    this.#timeoutMs = timeoutMs;
    // Discovery (Target.setDiscoverTargets) reports every change of the tab's URL.
    const stopEvents = transport.onEvent((event) => {
      if (event.sessionId !== undefined) return;
      const info = event.params.targetInfo as TargetInfo | undefined;
      if (event.method === "Target.targetInfoChanged" && info?.targetId === targetId) this.#checkUrl(info.url);
      if (
        (event.method === "Target.targetDestroyed" || event.method === "Target.targetCrashed") &&
        event.params.targetId === targetId
      ) {
        this.#revoke("the tab was closed");
      }
    });
    const stopClose = transport.onClose(() => this.#revoke("the connection to Chrome closed"));
    this.#stopWatching = () => {
      stopEvents();
      stopClose();
    };
  }

  /** The granted tab's target id. */
  get targetId(): string {
    return this.#targetId;
  }

  /** True once revoked: never re-acquired. */
  get revoked(): boolean {
    return this.#revoked !== undefined;
  }

  #checkUrl(url: string): void {
    if (originOf(url) !== this.origin) this.#revoke(`the tab left ${this.origin}`);
  }

  #revoke(reason: string): void {
    if (this.#revoked !== undefined) return;
    this.#revoked = reason;
    this.#refs = new Map();
    this.#stopWatching?.();
  }

  #revokedError(): BrowserToolError {
    return new BrowserToolError(
      "browser_grant_revoked",
      `The grant of this Chrome tab is revoked (${this.#revoked}); it is never re-acquired: ask the user to grant a tab again.`,
    );
  }

  #refuseUnsupported(what: string): Promise<never> {
    if (this.#closed) return Promise.reject(closedError());
    return Promise.reject(
      new BrowserToolError(
        "browser_unsupported",
        `${what} is not supported on a selected Chrome tab; work within the granted tab.`,
      ),
    );
  }

  /** Runs `work` after the operations before it, on the tab attached for this operation only. */
  #run<T>(options: BrowserOperationOptions, work: (page: PageSession, info: TargetInfo) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(closedError());
    const previous = this.#queue;
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next operation starts after this one and every one before it ended, even when this
    // one stopped waiting for its turn.
    this.#queue = previous.then(() => done);
    const run = async (): Promise<T> => {
      try {
        // Waiting for its turn ends with the signal; once started, the operation settles only
        // after its detach.
        await guarded(previous, options.signal);
        if (this.#revoked !== undefined) throw this.#revokedError();
        return await withAttachedTarget(
          this.#transport,
          this.#targetId,
          { signal: options.signal, timeoutMs: this.#timeoutMs },
          async (page) => work(page, await this.#check(page)),
        );
      } catch (error) {
        throw this.#classify(error, options.signal);
      } finally {
        release();
      }
    };
    return run();
  }

  /** The tab's URL and title; revokes when it is no longer at the grant's Origin. */
  async #check(page: PageSession): Promise<TargetInfo> {
    const { targetInfo } = await guarded(
      this.#transport.send<{ targetInfo: TargetInfo }>("Target.getTargetInfo", { targetId: this.#targetId }),
      page.signal,
    );
    this.#checkUrl(targetInfo.url);
    if (this.#revoked !== undefined) throw this.#revokedError();
    return targetInfo;
  }

  #classify(error: unknown, signal: AbortSignal): unknown {
    if (error instanceof BrowserToolError) return error;
    if (signal.aborted && error === signal.reason) return error;
    if (error instanceof CdpClosedError) {
      this.#revoke("the connection to Chrome closed");
      return this.#revokedError();
    }
    if (
      error instanceof CdpCommandError &&
      /no target|target closed|not found for id/i.test(error.message) &&
      /^Target\./.test(error.method)
    ) {
      this.#revoke("the tab was closed");
      return this.#revokedError();
    }
    if (error instanceof CdpCommandError) {
      return new BrowserToolError(
        "browser_action_failed",
        `Chrome refused ${error.method} (${error.message.slice(error.method.length + 2)}); observe the page and try again.`,
        { cause: error },
      );
    }
    return error;
  }

  async #observe(page: PageSession): Promise<BrowserObservation> {
    // Read the target again: an action may have navigated the tab.
    const info = await this.#check(page);
    const read = await readObservation(page, info, 1);
    if (read.documentUrl !== undefined) this.#checkUrl(read.documentUrl);
    if (this.#revoked !== undefined) throw this.#revokedError();
    this.#refs = read.refs;
    return read.observation;
  }

  /** Same-Origin navigation of the granted tab; another Origin is `browser_origin_not_admitted` and the grant stays. */
  navigate(navigation: BrowserNavigation, options: BrowserOperationOptions): Promise<BrowserObservation> {
    if (navigation.newTab) return this.#refuseUnsupported("Opening a new tab (newTab)");
    const origin = originOf(navigation.url);
    if (origin !== this.origin) {
      if (this.#closed) return Promise.reject(closedError());
      return Promise.reject(
        new BrowserToolError(
          "browser_origin_not_admitted",
          `${origin ?? "That URL"} is not the granted tab's Origin; a selected Chrome tab navigates only within ${this.origin}.`,
        ),
      );
    }
    return this.#run(options, async (page) => {
      this.#refs = new Map();
      const stop = await waitForLoad(page);
      try {
        const answer = await page.send<{ loaderId?: string; errorText?: string }>("Page.navigate", {
          url: navigation.url,
        });
        if (answer.errorText) {
          throw new BrowserToolError(
            "browser_action_failed",
            `The navigation failed (${answer.errorText}); check the URL and try again.`,
          );
        }
        if (answer.loaderId !== undefined) await stop.loaded;
      } finally {
        stop.dispose();
      }
      return this.#observe(page);
    });
  }

  /** Observes the granted tab (this can be the grant's first operation). */
  observe(options: BrowserOperationOptions): Promise<BrowserObservation> {
    return this.#run(options, (page) => this.#observe(page));
  }

  /** Always `browser_unsupported`: only the granted tab is shown. */
  switchTab(_tabId: string, _options: BrowserOperationOptions): Promise<BrowserObservation> {
    return this.#refuseUnsupported("browser_switch_tab");
  }

  /** One action on the granted tab, then a fresh observation; refs are invalidated even when it fails. */
  act(action: BrowserAction, options: BrowserOperationOptions): Promise<BrowserObservation> {
    return this.#run(options, async (page) => {
      const refs = this.#refs;
      this.#refs = new Map();
      const settle = await settleNavigation(page);
      try {
        if (action.kind === "key") {
          await pressKey(page, action.key);
        } else {
          const tree = await readAxTree(page);
          if (action.kind === "drag") {
            const source = locate(tree, action.source, refs);
            const target = locate(tree, action.target, refs);
            await drag(page, source, target);
          } else {
            const node = locate(tree, action.target, refs);
            if (action.kind === "click") await click(page, node);
            else if (action.kind === "hover") await hover(page, node);
            else if (action.kind === "fill") await fill(page, node, action.value);
            else if (action.kind === "select") await selectOption(page, node, action.label);
            else
              throw new BrowserToolError(
                "browser_unsupported",
                `The action ${JSON.stringify((action as { kind: string }).kind)} is not supported.`,
              );
          }
        }
        await settle.done();
      } finally {
        settle.dispose();
      }
      return this.#observe(page);
    });
  }

  /** The current viewport as PNG, the user's viewport and look kept; any emulation asked for is `browser_unsupported`. */
  capture(request: BrowserCaptureRequest, options: BrowserOperationOptions): Promise<BrowserCapture> {
    const asked = (["width", "height", "colorScheme", "reducedMotion"] as const).filter(
      (key) => request[key] !== undefined,
    );
    if (asked.length > 0) return this.#refuseUnsupported(`Capture with ${asked.join(", ")}`);
    return this.#run(options, async (page, info) => {
      const viewport = await measureViewport(page);
      const media = await readMedia(page);
      const { data } = await page.send<{ data: string }>("Page.captureScreenshot", {
        format: "png",
        captureBeyondViewport: false,
        fromSurface: true,
      });
      // The pixels are returned only if the tab was still at the grant's Origin after taking them.
      await this.#check(page);
      return {
        url: info.url,
        title: info.title,
        tabs: tabList(info.targetId, info.url, info.title),
        ...(viewport ? { viewport } : {}),
        ...media,
        png: new Uint8Array(Buffer.from(data, "base64")),
      };
    });
  }

  /** Releases the grant (later operations: `browser_closed`); resolves once its operations settled. The tab stays open. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#stopWatching();
    }
    await this.#queue;
  }
}

function closedError(): BrowserToolError {
  return new BrowserToolError(
    "browser_closed",
    "This browser grant is closed; the Session's browser tools are no longer available.",
  );
}
